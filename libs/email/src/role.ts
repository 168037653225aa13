/**
 * Local parts that name a function rather than a person. Matching ignores case, a `+tag`, and
 * separators, so `Sales-Team+eu` and `no_reply` are recognised too.
 */
const ROLE_LOCAL_PARTS = [
  'abuse', 'accounting', 'accounts', 'admin', 'administration', 'administrator', 'admissions', 'ads', 'advertising',
  'affiliate', 'affiliates', 'alerts', 'all', 'analytics', 'api', 'apply', 'appointments', 'archive', 'art', 'auto',
  'billing', 'bookings', 'booking', 'bounce', 'bounces', 'business', 'buy', 'ceo', 'cfo', 'cto', 'careers', 'career',
  'community', 'compliance', 'contact', 'contactus', 'contracts', 'customercare', 'customerservice', 'customers',
  'data', 'design', 'dev', 'developer', 'developers', 'devnull', 'dispatch', 'dmarc', 'dns', 'docs', 'donations',
  'ecommerce', 'editor', 'editorial', 'education', 'email', 'enquiries', 'enquiry', 'events', 'everyone', 'export',
  'facilities', 'feedback', 'finance', 'ftp', 'general', 'gdpr', 'group', 'hello', 'help', 'helpdesk', 'hi', 'hostmaster',
  'hr', 'humanresources', 'info', 'information', 'inquiries', 'inquiry', 'investor', 'investors', 'invoice', 'invoices',
  'it', 'jobs', 'legal', 'list', 'listserv', 'mail', 'mailer-daemon', 'mailerdaemon', 'maildaemon', 'mailbox', 'manager',
  'marketing', 'media', 'members', 'membership', 'news', 'newsletter', 'noc', 'noreply', 'no-reply', 'notifications',
  'office', 'operations', 'ops', 'orders', 'owner', 'partners', 'partnerships', 'payments', 'payroll', 'phish', 'pr',
  'postmaster', 'press', 'privacy', 'procurement', 'purchasing', 'questions', 'reception', 'recruiting', 'recruitment',
  'registrar', 'register', 'registration', 'reply', 'reservations', 'returns', 'root', 'sales', 'school', 'secretary',
  'security', 'server', 'service', 'services', 'shop', 'social', 'spam', 'staff', 'store', 'studio', 'subscribe',
  'support', 'sysadmin', 'system', 'team', 'tech', 'techsupport', 'test', 'tickets', 'training', 'unsubscribe', 'usenet',
  'uucp', 'volunteer', 'web', 'webmaster', 'welcome', 'www', 'marketing-team', 'salesteam', 'supportteam',
];

const normalise = (local: string) => local.toLowerCase().replace(/\+.*$/, '').replace(/[._-]/g, '');

const ROLES = new Set(ROLE_LOCAL_PARTS.map(normalise));

export const ROLE_COUNT = ROLES.size;

export function isRoleLocalPart(localPart: string): boolean {
  const bare = localPart.replace(/^"|"$/g, '');
  return ROLES.has(normalise(bare));
}
