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
bool write_full(int fd, std::string_view data);

}  // namespace ds::sys
