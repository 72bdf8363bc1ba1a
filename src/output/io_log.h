// --io-log: one line per I/O of a run, written by a thread of the log's own
// so that the engine's workers never wait on it.
//
// Each worker hands its records to a bounded single-producer single-consumer
// ring of its own; push() is a few loads and stores (no lock, no syscall, no
// allocation).  When the writer cannot keep up and a ring is full, the record
// is dropped and counted: memory stays bounded (workers x capacity x 48
// bytes, plus a 1 MiB text buffer) and the I/O path never waits.
//
// The text goes out in whole 4 KiB blocks with O_DIRECT where the file
// system takes it (output/block_appender.h: the page cache's copy was most of
// the log's CPU), the rest through the page cache: every 100 ms at least,
// and all of it when the rings are found empty and at the end.  A run
// killed with -9 leaves whole lines but perhaps the last.  A write that
// fails (a full file system) ends the log: its whole lines are counted as
// written, and a partial last line is cut off (truncated back to the last
// whole line), so the log still replays; a stream, which cannot be cut,
// has the failure say where its last line is cut short.
//
// Order: a worker's lines keep the order in which it pushed them.  Across
// workers, lines interleave: each pass of the writer merges the records the
// rings hold by their line time (due time, else submit time), so the file is
// nearly in time order; a record pushed after a pass began may come after a
// later one of another worker.
//
// Times are printed relative to `start_ns`; a time before it (a due time can
// never be, a clock mix-up could) is printed as 0.
//
//   ndjson  {"target":0,"phase":"random","op":"read","offset":4096,"length":4096,
//           "due_ns":123,"submit_ns":130,"complete_ns":200,"result":4096,"verify":"ok"}
//           due_ns null in a closed loop; verify null for a write, trim or
//           flush; ns relative to start_ns; target is the target's index;
//           phase the phase's name (--replay of the log takes the random ones).
//   fio     fio's iolog version 3 (iolog.c), for `fio --read_iolog=FILE`:
//             fio version 3 iolog
//             0 NAME add             (each target, then each target's open)
//             0 NAME open
//             TIME NAME read|write|trim|sync OFFSET LENGTH
//             TIME NAME close        (each target, at the last line's TIME)
//           TIME is in microseconds since start_ns.  It is the due time
//           when there is one (open loop, replay): the schedule the workload
//           meant, so a replay reproduces the arrivals rather than this
//           run's own lateness; else the submit time.  fio waits the
//           difference between one line's TIME and the previous line's, so
//           TIME never decreases in the file: a record older than the line
//           before it (another worker's, pushed late) gets that line's TIME.
//           A flush is `sync 0 0` (fio needs five fields).  No line says
//           the phase: fio 3.33 reads a comment as "bad iolog3", so this form
//           holds every phase's operations, and so does its replay.  fio replays
//           trim lines from 3.34 on; 3.33 skips each with "bad ddir: 2".  NAME is the
//           target's name, which fio reads with %256s: no white space.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "output/block_appender.h"
#include "output/io_log_record.h"
#include "sys/unique_fd.h"

namespace ds::output {

class IoLog {
  public:
    // Opens `path` through create_output_file (throws std::system_error like
    // it; EINVAL for a target name the fio format cannot carry or a capacity
    // that is not a power of two) and starts the writer.  One ring of
    // `capacity` records per worker; `targets` names the targets (fio's
    // file names); `start_ns` is time 0 of the log.
    IoLog(const std::string& path, IoLogFormat format, std::size_t workers,
          std::vector<std::string> targets, std::uint64_t start_ns,
          std::size_t capacity = kIoLogRingRecords);
    ~IoLog();  // finish() if not done
    IoLog(const IoLog&) = delete;
    IoLog& operator=(const IoLog&) = delete;

    // From worker `worker`'s thread only: never blocks, never allocates.
    // False (and counted as dropped) when its ring is full or the log is
    // finished.
    bool push(std::size_t worker, const IoRecord& r) noexcept {
        Ring& ring = *rings_[worker];
        const std::uint64_t head = ring.head.load(std::memory_order_relaxed);
        if (head - ring.cached_tail > mask_ || closed_.load(std::memory_order_relaxed)) {
            ring.cached_tail = ring.tail.load(std::memory_order_acquire);
            if (head - ring.cached_tail > mask_ || closed_.load(std::memory_order_relaxed)) {
                ring.dropped.store(ring.dropped.load(std::memory_order_relaxed) + 1,
                                   std::memory_order_relaxed);
                return false;
            }
        }
        ring.slots[head & mask_] = r;
        ring.head.store(head + 1, std::memory_order_release);
        return true;
    }

    // After the workers stopped pushing: drains every ring, writes the tail
    // (fio: close lines) and closes the file.  "" or one line naming the
    // failure ("io-log PATH: write: No space left on device", and where a
    // stream's last line is cut short).  Idempotent.
    std::string finish();

    std::uint64_t written() const;  // lines written (records, not header)
    std::uint64_t dropped() const;  // records pushed and never written
    // "" or "io-log: D of N lines dropped: the log could not keep up".
    std::string drop_summary() const;

  private:
    // head: written by the producer only; tail: by the writer only.  Each
    // on a cache line of its own, so a push does not share a line with
    // the writer except when the ring looks full (cached_tail).
    struct Ring {
        alignas(64) std::atomic<std::uint64_t> head{0};
        std::uint64_t cached_tail = 0;  // the producer's view of tail
        std::atomic<std::uint64_t> dropped{0};
        alignas(64) std::atomic<std::uint64_t> tail{0};
        std::unique_ptr<IoRecord[]> slots;
    };

    void run();
    std::size_t drain_pass();
    void format(const IoRecord& r);
    void format_ndjson(const IoRecord& r);
    void format_fio(const IoRecord& r);
    void write_fio_files(const char* action);
    void flush_text(BlockAppender::Flush how);
    void count_written();
    void cut_partial_line();
    void fail(const std::string& step, int err);

    std::string path_;
    IoLogFormat format_;
    std::vector<std::string> targets_;
    std::uint64_t start_ns_;
    std::uint64_t mask_;
    std::vector<std::unique_ptr<Ring>> rings_;
    std::atomic<bool> closed_{false};  // read by every push: written once, by finish()

    // The writer thread's own (finish() reads them after joining it).
    sys::UniqueFd fd_;
    std::string error_;
    std::vector<std::uint64_t> pos_, end_;  // each ring's part of a pass
    std::unique_ptr<BlockAppender> out_;    // formatted lines not written yet
    std::uint64_t head_lines_ = 0;          // lines before the records (fio's header)
    std::uint64_t formatted_ = 0;           // records formatted into out_ so far
    std::uint64_t last_fio_us_ = 0;         // fio: TIME never decreases
    std::atomic<std::uint64_t> written_{0};
    std::atomic<std::uint64_t> writer_dropped_{0};  // after an error, or unnamed target

    std::mutex mutex_;
    std::condition_variable wake_;
    bool quit_ = false;
    bool finished_ = false;
    std::thread writer_;
};

}  // namespace ds::output
