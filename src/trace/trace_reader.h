// An I/O trace read line by line in bounded memory, its format told by its
// content, its events put back in time order: what `--replay FILE` replays.
//
// Formats (checked against fio 3.33 and fio's iolog.c at f5344384, the
// kernel 6.18 tracefs output and blkparse's blkparse_fmt.c):
//
//   fio iolog v2   "fio version 2 iolog", then "FILE add|open|close",
//                  "FILE read|write|trim OFFSET LENGTH" (bytes),
//                  "FILE sync|datasync [OFFSET LENGTH]" and "FILE wait MS [LENGTH]".
//                  fio's read_iolog_get() treats a wait's number as milliseconds
//                  since fio started (it sleeps until mtime_since_genesis() reaches
//                  it), not the "microseconds relative to the previous wait" its
//                  HOWTO states; we follow the code: the events after "wait N" are
//                  due no earlier than N ms.  Without waits every event is due at 0.
//                  fio's writer also logs sync_file_range and syncfs: read as sync.
//   fio iolog v3   "fio version 3 iolog", then the same lines each led by the
//                  microseconds since the log started (log_io_u(): utime_since_now).
//                  fio ignores "wait" in v3; so do we (a skipped line).
//   blkparse text  the default output: "MAJ,MIN CPU SEQ SECONDS.NANOS PID ACTION RWBS
//                  SECTOR + COUNT [PROCESS]" (SECONDS.NANOS since the trace started);
//                  queue (Q) events only, other actions
//                  and the summary after the events ("CPU0 (8,0):", "Total (8,0):")
//                  are skipped.  A data-less Q ("Q FWS [sync]") is a flush.
//   tracefs        `cat /sys/kernel/tracing/trace` with block:block_bio_queue and/or
//                  block:block_rq_issue: "TASK-PID [CPU] FLAGS SECONDS: EVENT: PAYLOAD".
//                  When both events are present block_bio_queue is used (what the
//                  filesystem asked for, before merging) and block_rq_issue skipped;
//                  the choice is made within the first reorder window: until a
//                  block_bio_queue line shows up there, rq_issue events are kept.
//                  SECONDS is the trace clock (local, microseconds shown); "#" lines
//                  and "CPU:N [LOST M EVENTS]" are skipped (a lossy capture still
//                  replays, incomplete: lost_events() sums the Ms).  Other events are
//                  skipped.
//   io-log         drivestress's own NDJSON, one object per line:
//                  {"target":0,"op":"read","offset":4096,"length":4096,"due_ns":123,
//                   "submit_ns":130,"complete_ns":200,"result":4096,"verify":"ok"}
//                  op: read, write, trim or flush; due_ns: when the schedule wanted
//                  the operation, null in a closed loop (submit_ns is used then);
//                  "fua":true optional; target, op and (but for flush) offset and
//                  length required; a record whose "phase" is not "random" is left
//                  out (counted: other_phase_records()); other members are ignored.
//
// Times: every event's due_ns is its trace time less the first event's (the
// earliest, once sorted), so the first event is due at 0 in every format.
// Skipped lines are counted (skipped()); blank lines and fio's header are not.
//
// RWBS (blkparse and tracefs): [F] OP [F][A][S][M], a leading F a preflush, OP
// R W D (DE: secure erase) F (a flush request) N (no data) or Z? (zone ops), a
// later F forced unit access.  A preflush with data becomes two events on one
// line: a flush, then the write; N without a preflush and zone operations are
// skipped.  Sectors are 512 bytes.
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trace/event.h"
#include "trace/trace_parse.h"

namespace ds::trace {

// Events are held back in a reorder window (kWindowEvents events, or
// kWindowNs of trace time between the oldest held and the newest read) and
// come out sorted by time.  Two rules refuse a trace whose time steps back,
// each on its own: an event more than kWindowNs before the newest one read
// (however few events apart), and one earlier than an event already given
// out (more than kWindowEvents events back).  Memory: the window (~64 bytes
// an event), one line (at most kMaxLineBytes), the device names.
class Reader {
  public:
    static constexpr std::size_t kWindowEvents = 4096;
    static constexpr std::uint64_t kWindowNs = 1'000'000'000;
    static constexpr std::size_t kMaxLineBytes = 64 * 1024;

    // `name` names the input in messages ("trace.txt", "standard input").
    // Detects the format: throws std::invalid_argument on an empty trace or
    // an unknown format.
    Reader(std::istream& in, std::string name);

    Format format() const { return format_; }
    // nullopt at the end; throws std::invalid_argument for a bad line (and at
    // the end of a trace that had no I/O event at all).  After a throw the
    // reader is done: the replay stops there.
    std::optional<Event> next();
    // Names seen so far: "8,0" / fio file name / io-log target index as text.
    const std::vector<std::string>& devices() const { return devices_.names; }
    // Events that arrived out of time order and were put back in order.
    std::uint64_t reordered() const { return reordered_; }
    // Lines skipped on purpose: other blkparse actions, other tracefs events,
    // comments, fio file actions, tracefs "[LOST N EVENTS]" lines.
    std::uint64_t skipped() const { return skipped_; }
    // Events a tracefs capture says it lost: the N of its "[LOST N EVENTS]"
    // lines, summed (the trace is incomplete).
    std::uint64_t lost_events() const { return lost_events_; }
    // io-log records of phases other than random, left out (not in skipped()).
    std::uint64_t other_phase_records() const { return other_phase_; }

  private:
    enum class TracefsKind { undecided, bio_queue, rq_issue };
    struct Pending {
        detail::RawEvent raw;   // time_ns: the trace's own clock
        std::uint64_t seq = 0;  // arrival order: equal times keep it
        std::uint64_t line = 0;
        bool late = false;  // counted in reordered_
    };

    bool read_line();
    void detect();
    detail::Parsed parse(std::string_view line);
    bool read_more();
    bool keep_tracefs(bool rq_issue);
    void admit(const detail::RawEvent& raw);
    void purge_rq_issue();
    static bool later(const Pending& a, const Pending& b);
    bool window_full() const;
    Event pop();
    [[noreturn]] void fail_line(std::string_view reason) const;

    std::istream& in_;
    std::string name_;
    Format format_ = Format::io_log;
    std::vector<char> buffer_;  // one line, at most kMaxLineBytes
    std::string_view line_;     // the current line, in buffer_
    std::uint64_t line_no_ = 0;
    bool pending_line_ = false;  // line_ read by detect() and not parsed yet
    bool eof_ = false;
    detail::Devices devices_;
    detail::State state_;
    std::vector<Pending> window_;  // a min-heap on (time, seq)
    std::uint64_t seq_ = 0;
    std::uint64_t newest_ns_ = 0;    // latest trace time read
    std::uint64_t newest_line_ = 0;  // the line it was read on
    bool emitted_any_ = false;
    std::uint64_t first_ns_ = 0;
    std::uint64_t last_emitted_ns_ = 0;
    std::uint64_t last_emitted_line_ = 0;
    std::uint64_t reordered_ = 0;
    std::uint64_t skipped_ = 0;
    std::uint64_t lost_events_ = 0;
    std::uint64_t other_phase_ = 0;
    TracefsKind tracefs_kind_ = TracefsKind::undecided;
};

}  // namespace ds::trace
