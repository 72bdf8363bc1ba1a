// One description per figure of a phase: what it is called, its unit and
// meaning, where it comes from in the result model, and how each view spells
// it.  The JSON phase object, the schema's phase properties (checked by
// figures_test against schema/result.schema.json), the Prometheus counters
// and the text report's phase line all read this table; a new figure of a
// phase is one model field and one entry here (docs/architecture.md, "A new
// figure").  Each view keeps its own layout: the figures whose text is
// bespoke (the phase line's first columns) have no text of their own here.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "model/phase_result.h"

namespace ds::report {

struct PhaseFigure {
    std::string_view key;                  // JSON key in a phase object; the schema's property
    enum class Kind { count, real } kind;  // JSON integer or number
    std::string_view unit;                 // "bytes", "operations", "seconds", "bytes per second"
    std::string_view meaning;  // schema description and Prometheus HELP: one or two sentences
    double (*value)(const model::PhaseResult&);
    // When the figure exists for a phase (null: always).  Where it does not,
    // JSON has null, the text and Prometheus nothing.
    bool (*shown)(const model::PhaseResult&) = nullptr;
    // Prometheus: a counter per phase that adds up over iterations (its
    // name ends in _total); empty: not exported here.
    std::string_view metric = {};
    // Text: the figure as the phase line shows it ("kernel I/O threads 42 %
    // of a core"); null: not on the phase line, or spelled there by hand.
    std::string (*text)(const model::PhaseResult&) = nullptr;
    double minimum = 0;  // the schema's lower bound
    // A --trim-pct figure: a live Prometheus textfile expects it (a zero
    // from the start) only in a run that trims.
    bool trims = false;

    bool shown_for(const model::PhaseResult& p) const { return !shown || shown(p); }
};

// Every described figure, in the order the views show them.
std::span<const PhaseFigure> phase_figures();

}  // namespace ds::report
