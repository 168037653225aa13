/**
 * Prints one plain closing line ("jest: N passed, N failed, N skipped") after the whole run,
 * so CI can read the outcome without parsing Jest's own summary.
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    process.stdout.write(
      `jest: ${results.numPassedTests} passed, ${failed} failed, ${results.numPendingTests} skipped\n`,
    );
  }
}

module.exports = SummaryReporter;
