// Setters of the jobs, groups, files and time options.
#include <limits>
#include <stdexcept>
#include <utility>

#include "jobfile/setters.h"
#include "jobfile/value_lists.h"

namespace ds::jobfile::detail {

namespace {

constexpr unsigned kUintMax = std::numeric_limits<unsigned>::max();

// fio's int option: one whole number (size suffixes apply) from min to max.
unsigned count(const Job& j, const Value& v, unsigned min, unsigned max = kUintMax) {
    return static_cast<unsigned>(parse_integer(single(v), j.kb_base, min, max));
}

// "A" or "A-B" (or "A:B"): fio's two-offset value (startdelay, filesize).
std::pair<std::string_view, std::string_view> pair_of(const Value& v) {
    std::string_view s = need(v);
    if (s.ends_with(',')) s.remove_suffix(1);
    if (s.find(',') != std::string_view::npos)
        throw std::invalid_argument(quote(s) + ": one value or a range LOW-HIGH");
    std::size_t sep = s.find(':');
    if (sep == std::string_view::npos) sep = s.find('-', 1);
    if (sep == std::string_view::npos) return {s, s};
    return {s.substr(0, sep), s.substr(sep + 1)};
}

template <class T>
T choose(const Value& v, std::span<const std::string_view> words, std::span<const T> values) {
    const std::string& s = need(v);
    auto m = match_choice(s, words);
    std::string list;
    for (std::string_view w : words)
        list += (list.empty() ? "" : ", ") + std::string(w);
    if (!m) throw std::invalid_argument(quote(s) + " is not one of " + list);
    if (!m->rest.empty())
        throw std::invalid_argument(quote(s) + ": fio would ignore " + quote(m->rest));
    return values[m->index];
}

std::string too_many_names() {
    return "more than " + std::to_string(kMaxNames) + " names in one job";
}

constexpr std::string_view kFallocateWords[] = {"none",     "native", "posix", "keep",
                                                "truncate", "0",      "1"};
constexpr Fallocate kFallocate[] = {Fallocate::none, Fallocate::native,   Fallocate::posix,
                                    Fallocate::keep, Fallocate::truncate, Fallocate::none,
                                    Fallocate::posix};
constexpr std::string_view kContinueWords[] = {"none",   "read", "write", "io",
                                               "verify", "all",  "0",     "1"};
constexpr ContinueOnError kContinue[] = {
    ContinueOnError::none,   ContinueOnError::read, ContinueOnError::write, ContinueOnError::io,
    ContinueOnError::verify, ContinueOnError::all,  ContinueOnError::none,  ContinueOnError::all};
constexpr std::string_view kExitWords[] = {"group", "stonewall", "all"};
constexpr ExitWhat kExit[] = {ExitWhat::group, ExitWhat::stonewall, ExitWhat::all};
constexpr std::string_view kKbWords[] = {"1024", "1000"};
constexpr unsigned kKb[] = {1024, 1000};

const Taken kSetters[] = {
    {"name", [](Job& j, const Value& v) { j.name = need(v); }},
    {"wait_for", [](Job& j, const Value& v) { j.wait_for = need(v); }},
    {"numjobs", [](Job& j, const Value& v) { j.numjobs = count(j, v, 1, 4096); }},
    {"stonewall", [](Job& j, const Value& v) { j.stonewall = flag(v); }},
    {"new_group", [](Job& j, const Value& v) { j.new_group = flag(v); }},
    {"group_reporting", [](Job& j, const Value& v) { j.group_reporting = flag(v); }},
    {"exitall", [](Job& j, const Value& v) { j.exitall = flag(v); }},
    {"exit_what",
     [](Job& j, const Value& v) { j.exit_what = choose<ExitWhat>(v, kExitWords, kExit); }},
    {"thread", [](Job& j, const Value& v) { j.thread = flag(v); }},
    {"kb_base", [](Job& j, const Value& v) { j.kb_base = choose<unsigned>(v, kKbWords, kKb); }},
    {"startdelay",
     [](Job& j, const Value& v) {
         auto [low, high] = pair_of(v);
         j.startdelay = {parse_time_us(low, BareUnit::seconds),
                         parse_time_us(high, BareUnit::seconds)};
         if (j.startdelay.min_us > j.startdelay.max_us)
             throw std::invalid_argument(quote(need(v)) + ": a range goes from low to high");
     }},
    {"filename",
     [](Job& j, const Value& v) {
         for (std::string& f : split_names(need(v)))
             j.filenames.push_back(std::move(f));
         if (j.filenames.size() > kMaxNames) throw std::invalid_argument(too_many_names());
     }},
    {"directory",
     [](Job& j, const Value& v) {
         j.directories = split_names(need(v));
         if (j.directories.size() > kMaxNames) throw std::invalid_argument(too_many_names());
     }},
    {"nrfiles", [](Job& j, const Value& v) { j.nrfiles = count(j, v, 1); }},
    {"filesize",
     [](Job& j, const Value& v) {
         auto [low, high] = pair_of(v);
         j.filesize = {parse_size(low, j.kb_base), parse_size(high, j.kb_base)};
         if (j.filesize.min == 0 || j.filesize.min > j.filesize.max)
             throw std::invalid_argument(quote(need(v)) + ": sizes from 1, low to high");
     }},
    {"size", [](Job& j, const Value& v) { j.size = parse_amount(single(v), j.kb_base); }},
    {"offset", [](Job& j, const Value& v) { j.offset = parse_amount(single(v), j.kb_base); }},
    {"offset_increment",
     [](Job& j, const Value& v) { j.offset_increment = parse_amount(single(v), j.kb_base); }},
    {"io_size", [](Job& j, const Value& v) { j.io_size = parse_amount(single(v), j.kb_base); }},
    {"number_ios", [](Job& j, const Value& v) { j.number_ios = parse_size(single(v), j.kb_base); }},
    {"fill_device", [](Job& j, const Value& v) { j.fill_device = parse_bool(single(v)); }},
    {"create_on_open", [](Job& j, const Value& v) { j.create_on_open = parse_bool(single(v)); }},
    {"unlink", [](Job& j, const Value& v) { j.unlink = parse_bool(single(v)); }},
    {"fallocate",
     [](Job& j, const Value& v) {
         j.fallocate = choose<Fallocate>(v, kFallocateWords, kFallocate);
     }},
    {"time_based", [](Job& j, const Value& v) { j.time_based = flag(v); }},
    {"runtime",
     [](Job& j, const Value& v) { j.runtime_us = parse_time_us(single(v), BareUnit::seconds); }},
    {"ramp_time",
     [](Job& j, const Value& v) { j.ramp_time_us = parse_time_us(single(v), BareUnit::seconds); }},
    {"loops", [](Job& j, const Value& v) { j.loops = count(j, v, 1); }},
    {"continue_on_error",
     [](Job& j, const Value& v) {
         j.continue_on_error = choose<ContinueOnError>(v, kContinueWords, kContinue);
     }},
};

}  // namespace

const std::string& need(const Value& v) {
    if (!v) throw std::invalid_argument("needs a value (KEY=VALUE)");
    if (v->empty()) throw std::invalid_argument("an empty value");
    return *v;
}

std::string_view single(const Value& v) {
    std::string_view s = need(v);
    if (s.size() > 1 && s.ends_with(',')) s.remove_suffix(1);  // fio drops one trailing ','
    std::size_t at = s.find_first_of(",:");
    if (at == std::string_view::npos) at = s.find('-', 1);
    if (at != std::string_view::npos)
        throw std::invalid_argument(quote(s) + ": one value (fio would split it at '" +
                                    std::string(1, s[at]) + "')");
    return s;
}

bool flag(const Value& v) {
    return !v || parse_set(*v);
}

std::span<const Taken> job_setters() {
    return kSetters;
}

}  // namespace ds::jobfile::detail
