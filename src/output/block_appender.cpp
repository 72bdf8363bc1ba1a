#include "output/block_appender.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

#include "output/output_file.h"
#include "sys/full_io.h"

namespace ds::output {

namespace {

// Whether direct writes of whole kBlocks from kBlock-aligned memory suit
// the file's file system (STATX_DIOALIGN, Linux 6.1): alignments that are
// powers of two no larger than a block.
bool direct_fits(int fd) {
    struct statx stx {};
    if (::statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) != 0) return false;
    if (!(stx.stx_mask & STATX_DIOALIGN) || stx.stx_dio_offset_align == 0) return false;
    auto fits = [](std::uint32_t a) { return a <= BlockAppender::kBlock && (a & (a - 1)) == 0; };
    return fits(stx.stx_dio_offset_align) && fits(stx.stx_dio_mem_align);
}

}  // namespace

void BlockAppender::Free::operator()(char* p) const noexcept {
    ::operator delete[](p, std::align_val_t{kBlock});
}

BlockAppender::BlockAppender(int fd, std::size_t capacity, bool stream) : fd_(fd), stream_(stream) {
    // Room for the pending bytes' offset within a block ahead of them.
    cap_ = (capacity + kBlock - 1) / kBlock * kBlock + kBlock;
    buf_.reset(static_cast<char*>(::operator new[](cap_, std::align_val_t{kBlock})));
    if (stream_) return;
    const off_t pos = ::lseek(fd_, 0, SEEK_CUR);
    if (pos < 0) return;
    file_pos_ = lines_end_ = static_cast<std::uint64_t>(pos);
    if (!direct_fits(fd_)) return;
    base_ = file_pos_ % kBlock;
    direct_ = true;
}

bool BlockAppender::set_direct(bool on) {
    if (direct_on_ == on) return true;
    const int flags = ::fcntl(fd_, F_GETFL);
    if (flags < 0 || ::fcntl(fd_, F_SETFL, on ? flags | O_DIRECT : flags & ~O_DIRECT) != 0)
        return false;
    direct_on_ = on;
    return true;
}

// Writes [p, p + n) at file_pos_: with O_DIRECT while `direct` asks for it
// and the file takes it, the rest (all of it, after a refusal) through the
// page cache.
bool BlockAppender::write_span(const char* p, std::size_t n, bool direct) {
    if (n == 0) return true;
    std::size_t done = 0;
    if (stream_) {
        const bool ok = write_stream(fd_, {p, n}, AfterStop::give_up, &done);
        file_pos_ += done;
        return ok;
    }
    if (direct && direct_ && !write_direct(p, n)) return false;
    if (n == 0) return true;
    if (!set_direct(false)) return false;
    const bool ok = sys::write_full(fd_, {p, n}, &done);
    file_pos_ += done;
    return ok;
}

// Whole blocks with O_DIRECT, p and n moved past what went out.  A refusal
// (EINVAL, or fcntl's) or a short write (a full file system: the position
// is no longer aligned) ends it and leaves the appender on the page cache
// from then on; false on any other error.
bool BlockAppender::write_direct(const char*& p, std::size_t& n) {
    if (!set_direct(true)) {
        direct_ = false;
        return true;
    }
    while (n > 0) {
        const ssize_t w = ::write(fd_, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && errno != EINVAL) return false;
        if (w > 0) {
            const auto done = static_cast<std::size_t>(w);
            direct_bytes_ += done;
            file_pos_ += done;
            p += done;
            n -= done;
        }
        if (w <= 0 || w % static_cast<ssize_t>(kBlock) != 0) {
            direct_ = false;
            return true;
        }
    }
    return true;
}

// The '\n' among the `n` bytes at `p` that just reached the file, which
// ended at file_pos_ - n before them.
void BlockAppender::count_lines(const char* p, std::size_t n) noexcept {
    newlines_ += static_cast<std::uint64_t>(std::count(p, p + n, '\n'));
    if (const void* last = ::memrchr(p, '\n', n))
        lines_end_ =
            file_pos_ - n + static_cast<std::uint64_t>(static_cast<const char*>(last) - p) + 1;
}

bool BlockAppender::flush(Flush how) {
    if (used_ == 0) return true;
    const std::uint64_t start = file_pos_;
    std::size_t n = used_;
    if (direct_ && how != Flush::all) {
        const std::uint64_t whole = (start + used_) / kBlock * kBlock;
        if (whole > start)
            n = static_cast<std::size_t>(whole - start);
        else if (how == Flush::whole_blocks)
            return true;
    }
    // [0, head): up to the first block boundary; [head, head + body):
    // whole blocks; the rest: a block's start.
    const char* p = buf_.get() + base_;
    std::size_t head = n, body = 0;
    if (direct_) {
        head = std::min<std::size_t>(n, (kBlock - start % kBlock) % kBlock);
        body = (n - head) / kBlock * kBlock;
    }
    const bool ok = write_span(p, head, false) && write_span(p + head, body, true) &&
                    write_span(p + head + body, n - head - body, false);
    count_lines(p, static_cast<std::size_t>(file_pos_ - start));
    if (!ok) {
        const int err = errno;
        base_ = direct_ ? file_pos_ % kBlock : 0;
        used_ = 0;
        errno = err;
        return false;
    }
    const std::size_t rest = used_ - n;
    const std::size_t base = direct_ ? file_pos_ % kBlock : 0;
    std::memmove(buf_.get() + base, p + n, rest);
    base_ = base;
    used_ = rest;
    return true;
}

}  // namespace ds::output
