// The whole program as a function, so that two entry points share it: the
// product (src/main.cpp) and the tests' hooked build, which installs its
// pause points (run/test_hooks.h) first.
#pragma once

namespace ds::modes {

// main()'s job: argv in, exit status out.
int run_program(int argc, char** argv);

}  // namespace ds::modes
