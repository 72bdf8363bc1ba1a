// drivestress.  The program is modes/program.cpp; nothing else runs first,
// and no test hook is installed (the tests' hooked build is a binary of
// its own: tests/helpers/drivestress_hooked.cpp).
#include "modes/program.h"

int main(int argc, char** argv) {
    return ds::modes::run_program(argc, argv);
}
