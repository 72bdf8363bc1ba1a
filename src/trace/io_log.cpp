// drivestress's own io-log: one JSON object per line (trace_reader.h names
// its members); the records of a phase other than random are left out.  Each line is parsed alone,
// so a long log costs one line of memory.
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "trace/trace_parse.h"

namespace ds::trace::detail {

namespace {
using nlohmann::json;
using std::string;

std::uint64_t member_u64(const json& record, const char* key) {
    auto found = record.find(key);
    if (found == record.end()) throw std::invalid_argument(string("no \"") + key + "\"");
    if (found->is_number_integer() && !found->is_number_unsigned())
        throw std::invalid_argument(string("negative \"") + key + "\"");
    if (!found->is_number_unsigned())
        throw std::invalid_argument(string("\"") + key + "\" is not a whole number");
    return found->get<std::uint64_t>();
}

Op member_op(const json& record) {
    auto found = record.find("op");
    if (found == record.end() || !found->is_string())
        throw std::invalid_argument("no \"op\" string");
    const auto& op = found->get_ref<const string&>();
    if (op == "read") return Op::read;
    if (op == "write") return Op::write;
    if (op == "trim") return Op::trim;
    if (op == "flush") return Op::flush;
    throw std::invalid_argument("unknown op \"" + op.substr(0, 20) + "\"");
}

// due_ns, or submit_ns when the schedule had none (a closed loop: null).
std::uint64_t member_time(const json& record) {
    auto due = record.find("due_ns");
    if (due != record.end() && !due->is_null()) return member_u64(record, "due_ns");
    if (!record.contains("submit_ns"))
        throw std::invalid_argument("neither \"due_ns\" nor \"submit_ns\"");
    return member_u64(record, "submit_ns");
}
}  // namespace

Parsed parse_io_log(std::string_view line, Devices& devices) {
    json record = json::parse(line.begin(), line.end(), nullptr, false);
    if (record.is_discarded()) throw std::invalid_argument("not JSON");
    if (!record.is_object()) throw std::invalid_argument("not a JSON object");
    Parsed out;
    // A run's log holds every phase; the random phase's records are what
    // the replay stands in for.  A record without "phase" is taken.
    auto phase = record.find("phase");
    if (phase != record.end()) {
        if (!phase->is_string()) throw std::invalid_argument("\"phase\" is not a string");
        if (phase->get_ref<const string&>() != "random") {
            out.other_phase = true;
            return out;
        }
    }
    RawEvent event;
    event.op = member_op(record);
    event.time_ns = member_time(record);
    std::uint64_t target = member_u64(record, "target");
    if (event.op != Op::flush) {
        event.offset = member_u64(record, "offset");
        event.length = member_u64(record, "length");
        check_extent(event.op, event.offset, event.length);
    }
    auto fua = record.find("fua");
    if (fua != record.end() && !fua->is_boolean())
        throw std::invalid_argument("\"fua\" is not a boolean");
    event.fua = fua != record.end() && fua->get<bool>() && event.op == Op::write;
    event.device = devices.index(std::to_string(target));
    out.add(event);
    return out;
}

}  // namespace ds::trace::detail
