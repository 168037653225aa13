/** Unit tests sit next to the libraries and apps they test; e2e tests run against the built app in test/. */
const swc = [
  '@swc/jest',
  {
    jsc: {
      target: 'es2023',
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
    },
    module: { type: 'commonjs' },
  },
];

/** Each library where tsconfig.json's paths put it (libs/<layer>/<name>/src). */
const paths = Object.fromEntries(
  Object.entries(require('./tsconfig.json').compilerOptions.paths).map(([alias, [dir]]) => [
    `^${alias}$`,
    `<rootDir>/${dir.replace(/^\.\//, '')}`,
  ]),
);

const common = {
  testEnvironment: 'node',
  // Nest 12 ships ES modules only; compile them to CommonJS for Jest's module system. PGlite's
  // CommonJS build loads Node's modules with import(), which Jest's sandbox cannot run: compiled too.
  // So is @fastify/static's content-disposition, ES modules only (the package's innermost node_modules decides).
  transformIgnorePatterns: ['/node_modules/(?!(@nestjs|@electric-sql|content-disposition)/)(?!.*/node_modules/)'],
  transform: { '^.+\\.(t|j)sx?$': swc, '^.+\\.cjs$': swc },
  moduleNameMapper: paths,
};

module.exports = {
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: [
        '<rootDir>/libs/**/*.spec.ts',
        '<rootDir>/apps/**/*.spec.ts',
        '<rootDir>/test/deploy/**/*.spec.ts',
        '<rootDir>/test/soak/**/*.spec.ts',
      ],
    },
    { ...common, displayName: 'lab', testMatch: ['<rootDir>/test/lab/**/*.spec.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'] },
  ],
};
