// What the walkers of a record table share: whether a value, a column or a record is there.
#include "membudget/base/record.hpp"

namespace membudget {

bool truthy(const Column& column, const Cell& cell) {
    if (cell.none) return false;
    switch (column.kind) {
        case CellKind::number:
        case CellKind::fraction:
        case CellKind::flag:
        case CellKind::choice:  // any but its first id (its default: training of a mode)
            return cell.number > 0;
        case CellKind::text:
            return !cell.text.empty();
        case CellKind::texts:
            return !cell.texts.empty();
        case CellKind::numbers:
        case CellKind::byLine:
        case CellKind::parts:
            return !cell.numbers.empty();
        case CellKind::records:
        case CellKind::settings:
            return cell.count > 0;
        case CellKind::record:
        case CellKind::config:
            return cell.child != nullptr;
    }
    return false;
}

namespace {

bool columnTruthy(const RecordTable& table, std::uint8_t index, const void* record) {
    const Column& column = table.columns[index];
    Cell cell;
    column.read(record, cell);
    return truthy(column, cell);
}

}  // namespace

bool recordPresent(const RecordTable& table, const void* record) {
    return record != nullptr && (table.presentIf == kAlways || columnTruthy(table, table.presentIf, record));
}

bool columnPresent(const RecordTable& table, std::size_t index, const void* record) {
    const Column& column = table.columns[index];
    if (column.presentIf == kAlways) return true;
    return columnTruthy(table, column.presentIf, record) != column.has(kPresentIfNot);
}

std::uint8_t columnIndex(const RecordTable& table, std::string_view page) {
    for (std::size_t i = 0; i < table.columns.size(); ++i)
        if (page == table.columns[i].page) return static_cast<std::uint8_t>(i);
    return kAlways;
}

}  // namespace membudget
