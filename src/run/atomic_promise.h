// What a target promises of atomic writes, all of it: what the target read
// (a file's statx, its block queue: targets/atomic_facts.h) and, when it is
// on an NVMe namespace, what the namespace's Identify says
// (nvme/atomic_identify.h), which targets/ cannot reach.
#pragma once

#include "model/atomic_writes.h"
#include "targets/target.h"

namespace ds::run {

model::AtomicPromise atomic_promise_of(const targets::Target& t);

}  // namespace ds::run
