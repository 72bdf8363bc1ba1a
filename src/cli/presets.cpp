#include "cli/presets.h"

#include <algorithm>

#include "cli/option_table.h"

namespace ds::cli {

namespace {

using Options = std::vector<std::pair<std::string, std::string>>;

// How long each sequential test of desktop and nvme measures at least, as
// KDiskMark runs each of its tests 5 s: a small file is written and read
// pass after pass until then, so its figure never comes from a phase too
// short to measure (kMinMeasuredSeconds).  --seq-time overrides it.
constexpr const char* kPresetSeqTime = "5s";

// A sequential test: write then read-and-verify the file with this block
// and depth, one worker, each phase for kPresetSeqTime at least.
PresetTest seq(const std::string& label, const std::string& block, const std::string& qd) {
    return {label, Options{{"seq-block", block},
                           {"qd", qd},
                           {"files", "1"},
                           {"phases", "seq-write,seq-read"},
                           {"seq-time", kPresetSeqTime}}};
}

// Random tests come in pairs: 100% reads (each read verified), then 100%
// writes followed by a full re-verify, so every written byte is checked.
std::vector<PresetTest> rnd(const std::string& label, const std::string& qd,
                            const std::string& files) {
    return {{label + " read", Options{{"rand-block", "4K"},
                                      {"qd", qd},
                                      {"files", files},
                                      {"read-pct", "100"},
                                      {"phases", "seq-write,random"}}},
            {label + " write", Options{{"rand-block", "4K"},
                                       {"qd", qd},
                                       {"files", files},
                                       {"read-pct", "0"},
                                       {"phases", "seq-write,random,reverify"}}}};
}

std::vector<Preset> make_presets() {
    std::vector<Preset> all;
    all.push_back({"quick", "the default run: all four phases, 70% reads", {{"quick", {}}}});

    Preset desktop{"desktop", "SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1 (T = workers)", {}};
    desktop.tests.push_back(seq("SEQ1M Q8T1", "1M", "8"));
    desktop.tests.push_back(seq("SEQ1M Q1T1", "1M", "1"));
    for (auto& t : rnd("RND4K Q32T1", "32", "1"))
        desktop.tests.push_back(t);
    for (auto& t : rnd("RND4K Q1T1", "1", "1"))
        desktop.tests.push_back(t);
    all.push_back(desktop);

    Preset nvme{"nvme", "SEQ128K Q32T1, RND4K Q32T16", {}};
    nvme.tests.push_back(seq("SEQ128K Q32T1", "128K", "32"));
    for (auto& t : rnd("RND4K Q32T16", "32", "16"))
        nvme.tests.push_back(t);
    all.push_back(nvme);

    all.push_back({"burn-in",
                   "all phases, 50% writes, iterations until --duration or Ctrl+C",
                   {{"burn-in", Options{{"iterations", "0"}, {"read-pct", "50"}}}}});

    // An OLTP database's data files, as docs/presets.md states: pages of
    // 8K (PostgreSQL's) most of the time, 16K (InnoDB's, or two pages), 64K
    // and 128K for read-ahead scans and checkpoint writes; two reads to
    // every write, hot rows and index pages (zipf 1.1), 4 workers of 16 in
    // flight, a commit group's fdatasync every 32 writes; then the files
    // re-verified.
    all.push_back({"database",
                   "OLTP-like: 8K pages with 16K-128K scans, 70% reads, zipf:1.1 hot data, "
                   "fdatasync every 32 writes, Q16T4, 30 s",
                   {{"database", Options{{"rand-block", "8K:70,16K:15,64K:10,128K:5"},
                                         {"read-pct", "70"},
                                         {"distribution", "zipf:1.1"},
                                         {"qd", "16"},
                                         {"files", "4"},
                                         {"sync", "fdatasync"},
                                         {"sync-every", "32"},
                                         {"rand-time", "30s"},
                                         {"phases", "seq-write,random,reverify"}}}}});

    // One run, so one document holds it all: the sustained write (its
    // first passes precondition the drive, as PTS's twice-over sequential
    // fill) down to the cliff, the verifying read, the random 4K mix to
    // SNIA PTS steady state, the re-verify; and the health log around
    // every phase on NVMe.
    all.push_back({"nvme-endurance",
                   "sustained write over 4x the files (precondition, write cliff), random 4K "
                   "Q32 to steady state in 60 s rounds, drive health around every phase",
                   {{"endurance", Options{{"sustained-write", "4"},
                                          {"seq-block", "128K"},
                                          {"rand-block", "4K"},
                                          {"qd", "32"},
                                          {"steady-state", "60s"}}}}});
    return all;
}

}  // namespace

std::span<const Preset> presets() {
    static const std::vector<Preset> all = make_presets();
    return all;
}

const Preset* find_preset(std::string_view name) {
    for (const auto& p : presets())
        if (p.name == name) return &p;
    return nullptr;
}

std::string preset_names() {
    std::string names;
    for (const auto& p : presets())
        names += (names.empty() ? "" : ", ") + p.name;
    return names;
}

std::string presets_help() {
    // A term list like the options': "  desktop:" then its summary, one entry
    // per test with the options it sets ("--qd 8" never broken apart).
    auto term = [](std::string t) {
        t.resize(std::max(t.size() + 2, kHelpColumn), ' ');
        return t;
    };
    std::string out = "Presets (--preset NAME; options given on the command line override):\n";
    for (const auto& p : presets()) {
        out += wrap(term("  " + p.name + ":"), p.summary, kHelpWidth, kHelpColumn);
        for (const auto& t : p.tests) {
            if (t.options.empty()) continue;
            std::vector<std::string> words;
            for (const auto& [k, v] : t.options)
                words.push_back("--" + k + (v.empty() ? "" : " " + v));
            out += wrap(term("    " + t.label), words, kHelpWidth, kHelpColumn);
        }
    }
    return out;
}

}  // namespace ds::cli
