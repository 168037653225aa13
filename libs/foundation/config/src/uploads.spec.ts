import { ConfigError, loadConfig } from './index';

describe('the upload staging limits', () => {
  it('defaults to 2 uploads and 100 MB an account, 16 and 400 MB the process, 30 s of silence', () => {
    expect(loadConfig({}).uploads).toEqual({
      maxConcurrentPerAccount: 2,
      maxBytesPerAccount: 100 * 1024 * 1024,
      maxConcurrent: 16,
      maxStagedBytes: 400 * 1024 * 1024,
      idleTimeoutMs: 30_000,
    });
  });

  it('reads each variable', () => {
    expect(
      loadConfig({
        UPLOAD_MAX_CONCURRENT_PER_ACCOUNT: '1',
        UPLOAD_MAX_BYTES_PER_ACCOUNT: '65536',
        UPLOAD_MAX_CONCURRENT: '3',
        UPLOAD_MAX_STAGED_BYTES: '131072',
        UPLOAD_IDLE_TIMEOUT_MS: '500',
      }).uploads,
    ).toEqual({
      maxConcurrentPerAccount: 1,
      maxBytesPerAccount: 65_536,
      maxConcurrent: 3,
      maxStagedBytes: 131_072,
      idleTimeoutMs: 500,
    });
  });

  it.each([
    ['UPLOAD_MAX_CONCURRENT_PER_ACCOUNT', '0'],
    ['UPLOAD_MAX_BYTES_PER_ACCOUNT', '1.5'],
    ['UPLOAD_MAX_CONCURRENT', 'many'],
    ['UPLOAD_MAX_STAGED_BYTES', '-1'],
    ['UPLOAD_IDLE_TIMEOUT_MS', '10'],
  ])('refuses %s=%j, naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`\\b${name}\\b`));
  });

  it('refuses an account share over the whole process’s', () => {
    expect(() => loadConfig({ UPLOAD_MAX_CONCURRENT: '1' })).toThrow(
      new ConfigError(['UPLOAD_MAX_CONCURRENT_PER_ACCOUNT (2) must not be over UPLOAD_MAX_CONCURRENT (1)']),
    );
    expect(() => loadConfig({ UPLOAD_MAX_BYTES_PER_ACCOUNT: '2000', UPLOAD_MAX_STAGED_BYTES: '1000' })).toThrow(
      new ConfigError(['UPLOAD_MAX_BYTES_PER_ACCOUNT (2000) must not be over UPLOAD_MAX_STAGED_BYTES (1000)']),
    );
  });
});
