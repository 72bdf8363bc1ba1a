// Named workloads in the spirit of KDiskMark's profiles.  Each preset is a
// list of tests; each test is a set of existing options (verification stays
// on).  Options given on the command line override a preset's values.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ds::cli {

struct PresetTest {
    std::string label;  // e.g. "RND4K Q32T1 read"
    std::vector<std::pair<std::string, std::string>>
        options;  // long name -> value ("" for a switch)
};

struct Preset {
    std::string name;
    std::string summary;
    std::vector<PresetTest> tests;
};

std::span<const Preset> presets();
const Preset* find_preset(std::string_view name);
// "quick, desktop, ...": every preset's name, in order.
std::string preset_names();
// For --help: one line per preset with what it sets.
std::string presets_help();

}  // namespace ds::cli
