// Whole transfers with plain system calls, retried on EINTR and continued
// after a short transfer: the one loop every setup-path reader and writer
// uses (the hot path's transfers go through a Backend instead).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ds::sys {

// Reads up to `len` bytes at `offset`: the bytes read (fewer only at end of
// file), or -errno.
std::int64_t pread_full(int fd, void* buf, std::size_t len, std::uint64_t offset);
// Writes all `len` bytes at `offset`; false with errno set when it cannot
// (EIO when the file would not take any more).
bool pwrite_full(int fd, const void* buf, std::size_t len, std::uint64_t offset);
// Writes all of `data` at the descriptor's position (a stream, a FIFO).
// `done`, when given, gets how many bytes went out, all of them or those
// before the failure (a full file system takes part of a write).  On a
// descriptor with O_NONBLOCK it fails with EAGAIN when the reader leaves no
// room; with OnSignal::stop, a signal (EINTR) ends it too, for a caller
// that looks for a stop request before it goes on (output/output_file.h's
// write_stream, which waits for room in poll()).
enum class OnSignal { retry, stop };
bool write_full(int fd, std::string_view data, std::size_t* done = nullptr,
                OnSignal on_signal = OnSignal::retry);

}  // namespace ds::sys
