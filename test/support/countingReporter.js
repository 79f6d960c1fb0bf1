// Mocha's spec reporter, plus one line "<suite> <passed> <failed> <pending>" appended to
// $TEST_COUNTS_FILE when the run ends, so scripts/test.sh can print one total for all suites.
'use strict';
const fs = require('node:fs');
const Mocha = require('mocha');

class CountingReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const file = process.env.TEST_COUNTS_FILE;
      if (!file) return;
      const s = this.stats;
      fs.appendFileSync(file, `${process.env.TEST_SUITE_NAME || 'mocha'} ${s.passes} ${s.failures} ${s.pending}\n`);
    });
  }
}
module.exports = CountingReporter;
