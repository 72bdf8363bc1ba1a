#include "run/atomic_promise.h"

#include "nvme/atomic_identify.h"
#include "nvme/controller.h"

namespace ds::run {

model::AtomicPromise atomic_promise_of(const targets::Target& t) {
    model::AtomicPromise p = t.atomic_promise();
    const nvme::ControllerLookup c =
        nvme::find_nvme_controller(t.raw() ? t.info().path : t.info().directory);
    if (!c.controller) return p;  // not on NVMe: nothing more to read
    model::NvmeAtomicFacts facts;
    facts.device = c.controller->namespace_device;
    nvme::AtomicIdentifyReading r = nvme::read_atomic_identify(facts.device);
    facts.identify = r.value;
    facts.reason = std::move(r.reason);
    p.nvme = std::move(facts);
    return p;
}

}  // namespace ds::run
