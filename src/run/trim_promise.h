// --trim-pct: what a trimmed unit of a target must read back as.  A file's
// hole reads zeros.  A raw device promises what its NVMe namespace's DLFEAT
// says (nvme/identify_namespace.h), else nothing: the block layer makes no
// promise of its own (queue/discard_zeroes_data is 0 on every kernel since
// 4.12), and zeros, 0xFF or the old data then all pass.
#pragma once

#include <string>

#include "pattern/trim.h"
#include "targets/target.h"

namespace ds::run {

struct TrimPromiseOf {
    pattern::TrimPromise promise = pattern::TrimPromise::zeros;
    std::string words;  // for the header: where the promise comes from
};

TrimPromiseOf trim_promise_of(const targets::Target& t);

}  // namespace ds::run
