// Page-aligned, zero-initialised byte buffer (O_DIRECT needs aligned memory).
#pragma once

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

    AlignedBuffer() = default;
    explicit AlignedBuffer(std::size_t bytes) : size_(bytes) {
        std::size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
        data_ =
            static_cast<std::byte*>(std::aligned_alloc(kAlignment, rounded ? rounded : kAlignment));
        if (!data_) throw std::bad_alloc();
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
