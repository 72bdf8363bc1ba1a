#include "run/trim_promise.h"

#include "nvme/controller.h"
#include "nvme/identify_namespace.h"

namespace ds::run {

namespace {

constexpr const char* kAnything = "zeros, 0xFF or the old data pass, sector by sector";

}  // namespace

TrimPromiseOf trim_promise_of(const targets::Target& t) {
    using pattern::TrimPromise;
    if (!t.raw()) return {TrimPromise::zeros, "punched holes, which read back zeros"};
    const std::string& dev = t.info().path;
    const nvme::ControllerLookup c = nvme::find_nvme_controller(dev);
    if (!c.controller)
        return {t.trim_promise(),
                std::string("discards; the block layer promises nothing: ") + kAnything};
    const nvme::DeallocatedReading r = nvme::read_deallocated(dev);
    if (!r.value)
        return {TrimPromise::unspecified,
                "discards; DLFEAT unread (" + r.reason + "): " + kAnything};
    switch (*r.value) {
        case nvme::DeallocatedRead::zeros:
            return {TrimPromise::zeros,
                    "discards; the namespace reads them back as zeros (DLFEAT)"};
        case nvme::DeallocatedRead::ones:
            return {TrimPromise::ones, "discards; the namespace reads them back as 0xFF (DLFEAT)"};
        case nvme::DeallocatedRead::not_reported:
            break;
    }
    return {TrimPromise::unspecified,
            std::string("discards; the namespace does not say (DLFEAT): ") + kAnything};
}

}  // namespace ds::run
