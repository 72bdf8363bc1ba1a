// One section's options onto a Job, in fio's order, each through the
// policy: taken (its setter), noted, or refused.
#include <algorithm>
#include <map>
#include <stdexcept>
#include <utility>

#include "jobfile/job_file.h"
#include "jobfile/option_policy.h"
#include "jobfile/setters.h"

namespace ds::jobfile {

namespace {

const std::map<std::string_view, detail::Setter>& setters() {
    static const auto by_name = [] {
        std::map<std::string_view, detail::Setter> m;
        for (auto list :
             {detail::job_setters(), detail::workload_setters(), detail::rate_setters()})
            for (const detail::Taken& t : list)
                m.emplace(t.name, t.set);
        return m;
    }();
    return by_name;
}

// fio's option priorities (options.c .prio): these first, filename last.
int priority(std::string_view key) {
    const FioOption* o = find_main_option(key);
    std::string_view name = o ? o->name : key;
    if (name == "kb_base" || name == "unit_base" || name == "lockfile" ||
        name == "cpus_allowed_policy")
        return 1;
    if (name == "filename" || name == "filename_format") return -1;
    return 0;
}

// Levenshtein distance, as fio's string_distance.
std::size_t distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
            diagonal = up;
        }
    }
    return row[b.size()];
}

// fio's show_closest_option: the nearest main option within half the
// length (not for a key far longer than any option's name: the distance
// costs its length times theirs).
std::string closest(std::string_view key) {
    if (key.size() > 64) return "";
    const FioOption* best = nullptr;
    std::size_t best_distance = ~std::size_t{0};
    for (const FioOption& o : fio_options()) {
        std::string_view origin(o.origin);
        if (!origin.empty()) continue;
        std::size_t d = distance(key, o.name);
        if (d < best_distance) best_distance = d, best = &o;
    }
    if (best == nullptr || best_distance > (key.size() + 1) / 2) return "";
    return " (did you mean " + std::string(best->name) + "?)";
}

void apply_policy(Job& job, const FioOption& f, const RawOption& o, const std::string& owner) {
    Policy p = policy_of(f);
    if (p.status == Status::noted) {
        std::erase_if(job.notes, [&](const Note& n) { return n.option == o.key; });
        job.notes.push_back(Note{o.origin, o.key, p.reason});
        return;
    }
    if (p.status == Status::refused)
        throw JobFileError(o.origin, o.key, owner + " drivestress does not take: " + p.reason);
    auto it = setters().find(f.name);
    if (it == setters().end())
        throw JobFileError(o.origin, o.key, "taken but not read (a drivestress bug)");
    try {
        it->second(job, o.value);
    } catch (const std::invalid_argument& e) {
        throw JobFileError(o.origin, o.key, e.what());
    }
    job.set.insert_or_assign(f.name, o.origin);
    // Two of fio's options set one field: origin_of either names the last.
    for (auto [a, b] : {std::pair<std::string_view, std::string_view>{"direct", "buffered"},
                        {"rwmixread", "rwmixwrite"}}) {
        if (f.name == a) job.set.insert_or_assign(std::string(b), o.origin);
        if (f.name == b) job.set.insert_or_assign(std::string(a), o.origin);
    }
}

void apply_engine_option(Job& job, const RawOption& o) {
    const FioOption* e = find_engine_option(o.key);
    if (e == nullptr) throw JobFileError(o.origin, o.key, "not a fio option" + closest(o.key));
    std::string engine = job.ioengine.name;
    if (!engine_has_option(*e, engine))
        throw JobFileError(o.origin, o.key,
                           "an option of fio's " + std::string(e->origin + 7) +
                               " engine(s), not of ioengine=" + engine);
    apply_policy(job, *e, o, "an option of ioengine=" + engine);
}

}  // namespace

void apply_options(Job& job, const std::vector<RawOption>& options) {
    std::vector<const RawOption*> order;
    for (const RawOption& o : options)
        order.push_back(&o);
    std::stable_sort(order.begin(), order.end(), [](const RawOption* a, const RawOption* b) {
        return priority(a->key) > priority(b->key);
    });
    std::vector<const RawOption*> engine_options;
    for (const RawOption* o : order) {
        const FioOption* f = find_main_option(o->key);
        if (f == nullptr)
            engine_options.push_back(o);
        else
            apply_policy(job, *f, *o, "a fio option");
    }
    for (const RawOption* o : engine_options)
        apply_engine_option(job, *o);
}

}  // namespace ds::jobfile
