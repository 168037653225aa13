/** The settings an e2e test cluster runs with: a HELO name of its own, a short SMTP timeout, signups not throttled. */
export const E2E_CLUSTER_ENV = {
  SMTP_HELO_NAME: 'e2e.mailguard.test',
  SMTP_TIMEOUT_MS: '3000',
  SIGNUP_LIMIT_PER_IP_HOUR: '1000',
};
