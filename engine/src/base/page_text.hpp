// Text only the page shows (a field's help and source, the step-time parts' formulas and assumptions): the page's
// module leaves it out (MEMBUDGET_PAGE_TEXT_OUTSIDE, wasm/wasm.cmake) and the page reads it from
// web/src/generated/, which scripts/field-table.mjs writes from the CLI (ctest field_text_current), so that the wasm
// the page loads first stays within its size budget. Native builds and the on-demand module keep it.
#pragma once

#include <string_view>

#ifdef MEMBUDGET_PAGE_TEXT_OUTSIDE
#define PAGE_TEXT(text) std::string_view()
#else
#define PAGE_TEXT(text) text
#endif
