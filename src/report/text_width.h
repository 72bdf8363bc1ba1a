// How wide the text report's lines may be.  A line longer than the width
// is folded at the breaks between its fields (two spaces, or " | ") onto
// indented continuation lines, as a terminal of 100 columns shows it whole;
// --wide keeps every line as one.  Tables are laid out to fit, not folded.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>

namespace ds::report {

inline constexpr std::size_t kTextWidth = 100;

// 0: no limit (--wide).  Set once, before the report starts.
void set_text_width(std::size_t columns);
std::size_t text_width();

// Columns a line takes on a terminal: one per character (UTF-8 code point).
std::size_t columns_of(const std::string& line);

// `text` (one or more lines) with each line longer than text_width() folded:
// fields move to continuation lines indented by `indent` columns; a field
// longer than a line is folded at its spaces.
std::string fit(const std::string& text, std::size_t indent = 13);

// A line of clauses ("a | b | c"): one clause a line at `indent` columns
// (the same breaks whatever its numbers), each fitted; with --wide as it is.
std::string clauses(const std::string& line, std::size_t indent);

// fprintf(out, format, ...) with what it prints fitted (fit()).
void printf_fit(std::FILE* out, std::size_t indent, const char* format, ...)
    __attribute__((format(printf, 3, 4)));

}  // namespace ds::report
