// base/csv: what the CSV readers share beyond SplitCsvLine (base/text.h): their data lines, and
// the columns a header names.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/base/file_io.h"

namespace toposcope {

// The next line of a CSV-like input with something on it: `raw` as read, `t` trimmed (and without
// the UTF-8 byte order mark on line 1); blank lines and `#` comment lines are skipped. False at the
// end of the input (or on an I/O error, kept in `lines`).
bool NextCsvLine(LineReader& lines, std::string_view* raw, std::string_view* t);

// One column a header may name: its names in lower case, separated by '|' ("ts|ts_ns|time"), and
// where the index of the cell that names it goes (left as it is when no cell does).
struct CsvColumn {
  std::string_view names;
  int* index;
};

// Finds `columns` among the header `cells` (compared in lower case) and sets their indexes.
// Returns the index of the first cell that names a column found already (the header is then
// unusable and the search stops there), or -1. `unknown`, when given, gets the indexes of the
// cells that name no column.
int FindCsvColumns(const std::vector<std::string>& cells, std::initializer_list<CsvColumn> columns,
                   std::vector<size_t>* unknown = nullptr);

}  // namespace toposcope
