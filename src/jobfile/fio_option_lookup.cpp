// Looking a job-file key up in fio's list of options, as fio's o_match
// does: the exact name or the exact alias, case-sensitive.
#include <string>

#include "jobfile/fio_option_list.h"

namespace ds::jobfile {

namespace {

bool names(const FioOption& o, std::string_view key) {
    return key == o.name || (o.alias[0] != '\0' && key == o.alias);
}

bool is_engine_option(const FioOption& o) {
    return std::string_view(o.origin).starts_with("engine:");
}

}  // namespace

const FioOption* find_main_option(std::string_view key) {
    for (const FioOption& o : fio_options())
        if (!is_engine_option(o) && names(o, key)) return &o;
    return nullptr;
}

const FioOption* find_engine_option(std::string_view key) {
    for (const FioOption& o : fio_options())
        if (is_engine_option(o) && names(o, key)) return &o;
    return nullptr;
}

bool engine_has_option(const FioOption& option, std::string_view engine) {
    std::string_view owners(option.origin);
    if (!owners.starts_with("engine:")) return false;
    owners.remove_prefix(7);
    while (!owners.empty()) {
        std::size_t space = owners.find(' ');
        if (owners.substr(0, space) == engine) return true;
        if (space == std::string_view::npos) break;
        owners.remove_prefix(space + 1);
    }
    return false;
}

}  // namespace ds::jobfile
