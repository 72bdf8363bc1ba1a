// The text of a result document: indented JSON, with `iterations` last as
// one compact line per iteration (written by hand: a document is rewritten
// after every iteration).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string_view>

#include "drivestress_version.h"
#include "model/drift.h"
#include "output/output_file.h"
#include "pattern/unit.h"
#include "report/figures.h"
#include "report/json_parts.h"
#include "report/json_report.h"
#include "units/utf8.h"

namespace ds::report {

using nlohmann::json;

namespace {

// Appends one compact JSON object, "key":value after "key":value.  Written by
// hand rather than through nlohmann::json: a document is rewritten after every
// iteration with every iteration's line, and this skips building and dumping
// a tree of objects for each line, and allocates no tree that grows with the
// run.
// measured: docs/performance.md, Figures from the source's comments
class CompactObject {
  public:
    explicit CompactObject(std::string& out) : out_(out) { out_ += '{'; }
    void add(std::string_view key, std::uint64_t v) {
        name(key);
        char buf[24];
        out_.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
    }
    // Finite values only (figures are guarded against division by zero).
    void add(std::string_view key, double v) {
        name(key);
        char buf[32];
        out_.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
    }
    void add(std::string_view key, bool v) {
        name(key);
        out_ += v ? "true" : "false";
    }
    // `v` needs no escaping (a phase name).
    void add(std::string_view key, std::string_view v) {
        name(key);
        out_ += '"';
        out_ += v;
        out_ += '"';
    }
    void close() { out_ += '}'; }

  private:
    void name(std::string_view key) {
        if (!first_) out_ += ',';
        first_ = false;
        out_ += '"';
        out_ += key;
        out_ += "\":";
    }
    std::string& out_;
    bool first_ = true;
};

// Seconds to the microsecond (their resolution: clock and getrusage), so
// that the shortest representation stays short.
double microseconds(double s) {
    return std::round(s * 1e6) / 1e6;
}

void append_iteration(std::string& out, const model::IterationResult& it) {
    CompactObject o(out);
    o.add("index", it.index);
    out += ",\"phases\":[";
    bool first = true;
    for (const auto& p : it.phases) {
        if (!first) out += ',';
        first = false;
        CompactObject ph(out);
        ph.add("phase", model::to_string(p.phase));
        if (p.interrupted) ph.add("interrupted", true);  // rare: only then, to save bytes
        ph.add("elapsed_s", microseconds(p.seconds));
        if (!p.too_short().empty()) ph.add("too_short", true);  // only then, as interrupted
        ph.add("read_bytes", p.read_bytes);
        ph.add("write_bytes", p.write_bytes);
        ph.add("read_ops", p.read_ops);
        ph.add("write_ops", p.write_ops);
        ph.add("verified_bytes", p.verified_bytes);
        ph.add("mismatch_total", p.mismatches);
        ph.add("p50_ns", p.p50_ns);
        ph.add("p99_ns", p.p99_ns);
        ph.add("max_ns", p.max_ns);
        ph.add("cpu_s", microseconds(p.cpu.user_s + p.cpu.system_s));
        ph.close();
    }
    out += ']';
    o.close();
}

}  // namespace

std::string iteration_line(const model::IterationResult& it) {
    std::string out;
    append_iteration(out, it);
    return out;
}

json iterations_json(const model::RunResult& r) {
    json out = json::array();
    for (const auto& it : r.iterations)
        out.push_back(json::parse(iteration_line(it)));
    return out;
}

namespace {

bool is_flat(const json& array) {
    for (const auto& v : array)
        if (v.is_object() || (v.is_array() && !std::all_of(v.begin(), v.end(), [](const json& x) {
                                  return x.is_primitive();
                              })))
            return false;
    return true;
}

using units::utf8_length;

// A string as JSON text.  A path is any bytes but '/' and NUL; a byte that
// is not part of UTF-8 is written as \udc80..\udcff, as Python's
// os.fsdecode() does (surrogateescape): os.fsencode() of the value gives
// the bytes back, and the document stays valid UTF-8.
std::string string_text(const std::string& s) {
    std::size_t i = 0;
    while (i < s.size() && utf8_length(s, i) != 0)
        i += utf8_length(s, i);
    if (i == s.size()) return json(s).dump();
    std::string out = "\"";
    std::size_t run = 0;  // start of the current run of UTF-8
    auto flush = [&](std::size_t end) {
        if (end > run) {
            const std::string part = json(s.substr(run, end - run)).dump();
            out.append(part, 1, part.size() - 2);
        }
    };
    for (i = 0; i < s.size();) {
        if (const std::size_t n = utf8_length(s, i); n != 0) {
            i += n;
            continue;
        }
        flush(i);
        char esc[8];
        std::snprintf(esc, sizeof esc, "\\udc%02x", static_cast<unsigned char>(s[i]));
        out += esc;
        run = ++i;
    }
    flush(s.size());
    return out + '"';
}

// dump() without spaces, every string through string_text.
void append_compact(std::string& out, const json& j) {
    if (j.is_string()) {
        out += string_text(j.get_ref<const std::string&>());
    } else if (j.is_array()) {
        out += '[';
        for (std::size_t i = 0; i < j.size(); ++i) {
            if (i) out += ',';
            append_compact(out, j[i]);
        }
        out += ']';
    } else if (j.is_object()) {
        out += '{';
        bool first = true;
        for (const auto& [key, value] : j.items()) {
            out += first ? "" : ",";
            first = false;
            out += string_text(key) + ":";
            append_compact(out, value);
        }
        out += '}';
    } else {
        out += j.dump();
    }
}

// Like dump(2), but an array of numbers or strings, or of such arrays (a
// histogram's [lower, count] buckets), on one line: a histogram takes a line
// instead of four lines per bucket.
void append_pretty(std::string& out, const json& j, int depth) {
    const std::string pad(2 * static_cast<std::size_t>(depth + 1), ' ');
    if (j.is_object() && !j.empty()) {
        out += "{\n";
        bool first = true;
        for (const auto& [key, value] : j.items()) {
            out += first ? "" : ",\n";
            first = false;
            out += pad + string_text(key) + ": ";
            append_pretty(out, value, depth + 1);
        }
        out.append("\n").append(pad, 2).append("}");
    } else if (j.is_array() && !j.empty() && !is_flat(j)) {
        out += "[\n";
        for (std::size_t i = 0; i < j.size(); ++i) {
            out.append(i ? ",\n" : "").append(pad);
            append_pretty(out, j[i], depth + 1);
        }
        out.append("\n").append(pad, 2).append("]");
    } else {
        append_compact(out, j);
    }
}

}  // namespace

std::string document_text(const json& doc, const model::RunResult* r) {
    std::string text;
    append_pretty(text, doc, 0);
    if (r) {
        // An object's dump ends with "\n}" ("{}" when empty): "iterations"
        // goes last, one line per iteration.
        const bool empty = text == "{}";
        text.resize(text.size() - (empty ? 1 : 2));
        text.reserve(text.size() + 64 + r->iterations.size() * 1024);
        text += empty ? "\n  \"iterations\": [" : ",\n  \"iterations\": [";
        for (std::size_t i = 0; i < r->iterations.size(); ++i) {
            text += i ? ",\n    " : "\n    ";
            append_iteration(text, r->iterations[i]);
        }
        text += r->iterations.empty() ? "]\n}" : "\n  ]\n}";
    }
    text += '\n';
    return text;
}

}  // namespace ds::report
