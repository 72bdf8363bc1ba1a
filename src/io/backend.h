// The I/O backend interface: prepare / submit / reap, one instance per worker
// and file.  It is abstract so the run engine drives io_uring and plain
// pread/pwrite the same way, and so tests can put a fault-injecting backend
// in between.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ds::io {

// io_uring first: a value-initialized BackendKind is io_uring.
enum class BackendKind { io_uring, sync };
std::string_view to_string(BackendKind k);

// What a backend can do, as fio's ioengine flags: outside io/ the program
// asks these, never which kind a backend is.
enum BackendFlag : unsigned {
    kCancels = 1u << 0,        // takes back operations that have not started (a stop cancels)
    kBlockingCalls = 1u << 1,  // each operation is a blocking pread/pwrite on a thread
    kRing = 1u << 2,           // an io_uring: its setup flags and registrations describe it
};
unsigned backend_flags(BackendKind k);
// The kind a name asks for ("io_uring", "sync"); nullopt for any other
// ("auto": let select_backend choose).
std::optional<BackendKind> backend_named(std::string_view name);

// fsync/fdatasync: flush the whole file (offset, length and buf unused).
// trim (--trim-pct): drop [offset, offset + length): a file's blocks are
// punched out (fallocate PUNCH_HOLE|KEEP_SIZE), a block device's discarded
// (BLKDISCARD; on io_uring, URING_CMD BLOCK_URING_CMD_DISCARD); buf unused,
// and it answers 0.
enum class OpKind : std::uint8_t { read, write, fsync, fdatasync, trim };
// "read", "write", "fsync", "fdatasync", "trim"
std::string_view to_string(OpKind k);
inline bool is_flush(OpKind k) {
    return k == OpKind::fsync || k == OpKind::fdatasync;
}

// Whether `fd` is a block device (a trim is then a discard, not a hole).
bool is_block_device(int fd);

// One operation in flight.  The engine owns these (one per slot, its buffer
// beside it); backends hand the pointer back in the completion.
struct Request {
    OpKind kind = OpKind::read;
    std::uint32_t length = 0;     // bytes still to transfer (shrinks on a short transfer)
    std::uint64_t offset = 0;     // file offset of the next byte to transfer
    std::byte* buf = nullptr;     // where the next byte goes / comes from
    std::uint64_t submit_ns = 0;  // clock at first submission
    std::uint32_t slot = 0;       // engine's bookkeeping
    int rw_flags = 0;  // writes: RWF_SYNC or RWF_DSYNC (per-write O_SYNC/O_DSYNC), RWF_ATOMIC
};

struct Completion {
    Request* req;
    std::int32_t result;  // bytes transferred, or -errno
};

// Opt-in ring modes (--sqpoll, --iopoll).
struct UringOptions {
    // A kernel thread polls the submission queue: submitting costs no system
    // call while it is awake.  It sleeps after this long without work.
    bool sqpoll = false;
    unsigned sq_thread_idle_ms = 50;
    // Completions are polled from the device instead of interrupting: needs
    // O_DIRECT and a block device with poll queues.
    bool iopoll = false;
    // --backend nop: every operation is issued as IORING_OP_NOP through the
    // same ring, registered file and buffers, and completes as if its whole
    // length moved (a NOP answers 0).  Nothing reaches the device and no
    // buffer is filled: the engine's own cost per operation, as fio's null
    // engine and t/io_uring -N1 measure theirs.
    bool nop = false;
    // A wait for completions first reads the completion ring for up to this
    // long (entering the kernel only when it says completion work is
    // waiting), then sleeps in the kernel; 0: sleeps at once.
    unsigned spin_us = 0;
};

// io_uring features a backend actually enabled, for the report.
struct UringFeatures {
    std::vector<std::string> setup_flags;  // e.g. "SINGLE_ISSUER", "DEFER_TASKRUN"
    bool fixed_files = false;
    bool fixed_buffers = false;
    std::vector<std::string> notes;  // why an optional feature is off
    unsigned sq_entries = 0;
};

// What a backend is, for reports: its kind and, for io_uring, what the
// ring actually enabled.
struct BackendDescription {
    BackendKind kind = BackendKind::sync;
    UringFeatures uring;        // empty for sync
    unsigned sync_threads = 0;  // sync: threads in its pool (0: the worker's own thread only)
};

class Backend {
  public:
    virtual ~Backend() = default;
    virtual BackendKind kind() const = 0;
    unsigned flags() const { return backend_flags(kind()); }
    virtual BackendDescription describe() const = 0;
    // Most operations this backend keeps in flight at once.
    virtual unsigned depth() const = 0;
    // Queues one operation (at most depth() queued + in flight).
    virtual void prepare(Request& r) = 0;
    // Hands what is queued to the device, in the order it was queued, and
    // returns how many it took, or -errno when it took none.  A count below
    // what was queued (a short submit) leaves the rest queued for the next
    // submit() or reap().  -EAGAIN/-EBUSY: no room now (reap, then submit
    // again).  Any other -errno: the queued operations cannot be submitted;
    // the backend fails each of them, and they come back from reap() as
    // completions with that -errno.  Never throws.
    virtual int submit() = 0;
    // Submits what is queued, waits until at least `min_complete` operations
    // are done (fewer when interrupted by a signal, or, for more than one,
    // after a short backend-chosen wait), returns up to out.size().
    virtual std::size_t reap(std::span<Completion> out, unsigned min_complete) = 0;
    // Submits what is queued and waits until `min_complete` (>= 1)
    // operations are done or the monotonic clock reaches `deadline_ns`
    // (--rate: the next operation's due time), whichever comes first;
    // returns up to out.size(), maybe 0.  A backend that cannot wait with a
    // deadline waits for one completion.
    virtual std::size_t reap_until(std::span<Completion> out, unsigned /*min_complete*/,
                                   std::uint64_t /*deadline_ns*/) {
        return reap(out, 1);
    }
    // Asks the device to drop the operations in flight (`in_flight`: all of
    // them) that have not started; those complete with -ECANCELED, the rest
    // as they would have.  False when this backend cannot cancel anything
    // (a pread or pwrite in progress cannot be stopped).
    virtual bool cancel(std::span<Request* const> /*in_flight*/) { return false; }
    // From now on a wait in reap() spins this long before it sleeps (0:
    // sleeps at once; UringOptions::spin_us).  A backend whose waits are
    // blocking calls ignores it.
    virtual void set_spin_us(unsigned /*us*/) {}
    // System calls that moved data so far, counted by the backend itself:
    // pread/pwrite/fsync calls for sync, io_uring_enter calls for io_uring.
    // (The thread pool's futex wake-ups are not in it: they show as context
    // switches.)
    virtual std::uint64_t system_calls() const = 0;
};

}  // namespace ds::io
