// base/csv: see csv.h.
#include "toposcope/base/csv.h"

#include "toposcope/base/text.h"

namespace toposcope {

bool NextCsvLine(LineReader& lines, std::string_view* raw, std::string_view* t) {
  while (lines.Next(raw)) {
    *t = Trim(*raw);
    if (lines.line_number() == 1 && StartsWith(*t, "\xEF\xBB\xBF")) *t = Trim(t->substr(3));  // UTF-8 BOM
    if (t->empty() || (*t)[0] == '#') continue;
    return true;
  }
  return false;
}

int FindCsvColumns(const std::vector<std::string>& cells, std::initializer_list<CsvColumn> columns,
                   std::vector<size_t>* unknown) {
  for (size_t i = 0; i < cells.size(); ++i) {
    const std::string name = ToLowerAscii(cells[i]);
    int* slot = nullptr;
    for (const CsvColumn& c : columns) {
      for (std::string_view n : Split(c.names, '|')) {
        if (n == name) slot = c.index;
      }
      if (slot != nullptr) break;
    }
    if (slot == nullptr) {
      if (unknown != nullptr) unknown->push_back(i);
      continue;
    }
    if (*slot >= 0) return static_cast<int>(i);
    *slot = static_cast<int>(i);
  }
  return -1;
}

}  // namespace toposcope
