// no_io_uring PROG ARGS...: runs PROG with io_uring blocked the way Docker's
// default seccomp profile blocks it: io_uring_setup, io_uring_enter and
// io_uring_register fail with EPERM, every other system call is allowed.
// The end-to-end tests use it to check the runtime fallback to sync I/O.
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <cstring>

namespace {

#if defined(__x86_64__)
constexpr unsigned kNativeArch = AUDIT_ARCH_X86_64;
// x32 system calls share AUDIT_ARCH_X86_64 and set this bit in the number.
constexpr unsigned kSyscallNumberMask = ~0x40000000U;
#elif defined(__aarch64__)
constexpr unsigned kNativeArch = AUDIT_ARCH_AARCH64;
constexpr unsigned kSyscallNumberMask = ~0U;
#else
#error "no_io_uring: unsupported architecture (add its AUDIT_ARCH_* here)"
#endif

constexpr unsigned kErrnoEperm = SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA);

// Blocks the three io_uring calls of the native ABI.  Other ABIs (i386
// compat on x86_64) are allowed: the programs under test are native.
const sock_filter kFilter[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kNativeArch, 1, 0),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
    BPF_STMT(BPF_ALU | BPF_AND | BPF_K, kSyscallNumberMask),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 3, 0),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_enter, 2, 0),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_register, 1, 0),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    BPF_STMT(BPF_RET | BPF_K, kErrnoEperm),
};

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: no_io_uring PROG [ARGS...]\n");
        return 2;
    }
    // Required to install a filter without CAP_SYS_ADMIN; also what Docker does.
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        std::fprintf(stderr, "no_io_uring: prctl(PR_SET_NO_NEW_PRIVS): %s\n", std::strerror(errno));
        return 126;
    }
    sock_fprog prog{};
    prog.len = static_cast<unsigned short>(sizeof kFilter / sizeof kFilter[0]);
    prog.filter = const_cast<sock_filter*>(kFilter);
    if (::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0) {
        std::fprintf(stderr, "no_io_uring: prctl(PR_SET_SECCOMP): %s\n", std::strerror(errno));
        return 126;
    }
    ::execvp(argv[1], argv + 1);
    std::fprintf(stderr, "no_io_uring: %s: %s\n", argv[1], std::strerror(errno));
    return errno == ENOENT ? 127 : 126;
}
