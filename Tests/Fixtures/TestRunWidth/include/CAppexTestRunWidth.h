// CAppexTestRunWidth: how many test cases the package's test run runs at once.
//
// Swift Testing starts every test case of a run at once unless the environment variable
// SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH says how many may run together (Swift
// 6.3). Most of this package's tests start real processes: appexd, extensions, the CLI,
// helper apps. Seven hundred of them started together on a two-core machine starve one
// another past their time limits, so a constructor in this target, linked into the test
// bundle, sets that variable before the test library reads it: to twice the cores online,
// the width Swift Testing itself proposes, unless the environment already sets it.
// docs/reliability.md ("Sanitizers") has the measurements. Test code only.
#ifndef C_APPEX_TEST_RUN_WIDTH_H
#define C_APPEX_TEST_RUN_WIDTH_H

// Nothing to call: linking the target is enough.

#endif
