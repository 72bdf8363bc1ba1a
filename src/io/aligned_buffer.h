// Page-aligned, zero-initialised byte buffer (O_DIRECT needs aligned memory).
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <span>
#include <utility>

namespace ds::io {

class AlignedBuffer {
  public:
    static constexpr std::size_t kAlignment = 4096;

    static constexpr std::size_t kHugePage = 2 << 20;
    enum class Pages { base, huge_if_large };

    AlignedBuffer() = default;
    // Pages::huge_if_large: a buffer of at least one huge page is aligned to
    // and rounded up to huge pages and advised MADV_HUGEPAGE (effective
    // when transparent huge pages are "always" or "madvise"), so a 1 MiB
    // block is one physically contiguous range: the block layer does not
    // split it into two bios at a device's segment limit, and io_uring
    // registers it as a few large segments instead of 256 pages.
    explicit AlignedBuffer(std::size_t bytes, Pages pages = Pages::base) : size_(bytes) {
        const bool huge = pages == Pages::huge_if_large && bytes >= kHugePage;
        const std::size_t align = huge ? kHugePage : kAlignment;
        std::size_t rounded = (bytes + align - 1) / align * align;
        data_ = static_cast<std::byte*>(std::aligned_alloc(align, rounded ? rounded : align));
        if (!data_) throw std::bad_alloc();
        if (huge) ::madvise(data_, rounded, MADV_HUGEPAGE);  // advice: failure is harmless
        std::memset(data_, 0, rounded);
    }
    AlignedBuffer(AlignedBuffer&& o) noexcept
        : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
    AlignedBuffer& operator=(AlignedBuffer&& o) noexcept {
        std::swap(data_, o.data_);
        std::swap(size_, o.size_);
        return *this;
    }
    AlignedBuffer(const AlignedBuffer&) = delete;
    AlignedBuffer& operator=(const AlignedBuffer&) = delete;
    ~AlignedBuffer() { std::free(data_); }

    std::byte* data() const { return data_; }
    std::size_t size() const { return size_; }
    std::span<std::byte> span() const { return {data_, size_}; }

  private:
    std::byte* data_ = nullptr;
    std::size_t size_ = 0;
};

}  // namespace ds::io
