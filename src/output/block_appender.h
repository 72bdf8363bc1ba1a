// A buffer of text appended to a file: whole blocks with O_DIRECT where the
// file's file system takes it, the rest through the page cache.
//
// Why: through the page cache the kernel copies every byte into fresh
// pages and writes them back later, several times the CPU of the same bytes
// with O_DIRECT, and --io-log at QD 32 writes tens of MB a second.  With
// O_DIRECT the device reads the buffer itself.
// measured: docs/performance.md, With O_DIRECT for the log's whole blocks
//
// The file offset of every direct write is a multiple of the block (4 KiB,
// a multiple of the file system's STATX_DIOALIGN), and so is its address:
// the pending bytes sit in the buffer at the same offset within a block as
// they will in the file.  What does not make a whole block (the start of a
// log written partly through the page cache, the end) goes through the page
// cache; the kernel keeps the two coherent.  A file system that refuses
// O_DIRECT, or a direct write that fails with EINVAL, leaves the appender
// writing through the page cache from then on.  A stream (FIFO, terminal,
// socket) is written with write_stream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

namespace ds::output {

class BlockAppender {
  public:
    static constexpr std::size_t kBlock = 4096;

    // `fd`: open for writing, positioned at its end (not owned); `stream`:
    // not a regular file.  The buffer holds at least `capacity` bytes.
    BlockAppender(int fd, std::size_t capacity, bool stream);

    // Where the next bytes go, how many fit; advance() commits them.
    char* end() noexcept { return buf_.get() + base_ + used_; }
    std::size_t room() const noexcept { return cap_ - base_ - used_; }
    void advance(std::size_t n) noexcept { used_ += n; }
    std::string_view pending() const noexcept { return {buf_.get() + base_, used_}; }

    enum class Flush {
        all,           // everything pending
        whole_blocks,  // only up to the last block boundary (perhaps nothing)
        timely,        // whole blocks if there is one, else everything
    };
    // False with errno set on a failure; what was pending is then dropped
    // (write nothing more), part of it perhaps in the file: a full file
    // system takes part of a write.  file_end() says how far it reached.
    bool flush(Flush how);
    void discard() noexcept { used_ = 0; }

    // What reached the file, failed flushes included: where the file ends,
    // where its last whole line ends (just past its last '\n'), and how
    // many '\n' were written.  A text log counts its whole lines with these
    // and cuts a partial last line off.  A stream counts from 0.
    std::uint64_t file_end() const noexcept { return file_pos_; }
    std::uint64_t lines_end() const noexcept { return lines_end_; }
    std::uint64_t newlines() const noexcept { return newlines_; }

    std::uint64_t direct_bytes() const noexcept { return direct_bytes_; }
    bool direct_capable() const noexcept { return direct_; }

  private:
    struct Free {
        void operator()(char* p) const noexcept;
    };
    bool write_span(const char* p, std::size_t n, bool direct);
    bool write_direct(const char*& p, std::size_t& n);
    bool set_direct(bool on);
    void count_lines(const char* p, std::size_t n) noexcept;

    int fd_;
    bool stream_;
    bool direct_ = false;     // the file takes O_DIRECT writes
    bool direct_on_ = false;  // O_DIRECT is set on fd_
    std::unique_ptr<char, Free> buf_;
    std::size_t cap_ = 0;
    std::size_t base_ = 0;  // pending text starts here: file_pos_ % kBlock
    std::size_t used_ = 0;
    std::uint64_t file_pos_ = 0;
    std::uint64_t lines_end_ = 0;
    std::uint64_t newlines_ = 0;
    std::uint64_t direct_bytes_ = 0;
};

}  // namespace ds::output
