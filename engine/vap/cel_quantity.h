// Quantities in CEL, read as engine/workload/quantity_field.h reads them and
// written out as engine/quantity/quantity_format.cc writes them. The API
// server's quantity library compares exactly but prints nothing, and
// isInteger() is false for whole values it keeps as decimals (1.5Gi): exact
// values are found here by comparing with candidates built from the
// approximate float, which is exact below 2^53 units. Internal to engine/vap.
#ifndef GPULINT_ENGINE_VAP_CEL_QUANTITY_H_
#define GPULINT_ENGINE_VAP_CEL_QUANTITY_H_

#include <string>
#include <string_view>
#include <vector>

#include "engine/vap/cel_text.h"

namespace gpulint::cel {

// The quantities the others compare with, as variables (q0, q29, qm29): a
// policy declares them before it uses anything below.
std::vector<Variable> QuantityConstants();

// One entry of a resource list (or a volume's size) as a CEL map:
//   name, path     the resource and where it is written
//   v              the value as the API server hands it over
//   str, nil       whether it is a string, null
//   text           a string without surrounding white space, a number's
//                  digits, else ''
//   valid          accepted and evaluated (ResourceEntry::valid: below 10^29)
//   q, sign       the quantity (0 when not valid), milli-rounded as the
//                  API server stores container resources when `stored_expr`
//                  (a CEL condition) holds
// `fields` are more fields for the map, "'c': dyn(e.c), ".
std::string Entry(std::string_view name_expr, std::string_view value_expr,
                  std::string_view path_expr, std::string_view stored_expr, std::string_view fields,
                  Names* names);

// The text ReadQuantityField reads of a value: a string without surrounding
// white space, a number's digits, else ''.
std::string QuantityText(std::string_view value_expr);
// For a value of a resource list: whether the API server does not read it as
// a quantity of zero or less (ResourceEntry: !valid || quantity > 0), the
// test of a GPU request or limit.
std::string AboveZeroOrRefused(std::string_view value_expr, Names* names);

// Quantity::is_whole of a quantity expression (past 2^53 units: taken as
// whole).
std::string Whole(std::string_view q_expr, Names* names);
// Quantity::ExactDecimal of a quantity expression: "0.5", "-2", "524288000".
std::string ExactDecimal(std::string_view q_expr, Names* names);
// FormatBytes: "524288000 B = 524.3 MB = 500 MiB".
std::string FormatBytes(std::string_view q_expr, Names* names);
// DescribeCount of an Entry's stored quantity: "2", or "500m (0.5)".
std::string DescribeCount(std::string_view entry_expr, Names* names);

}  // namespace gpulint::cel

#endif  // GPULINT_ENGINE_VAP_CEL_QUANTITY_H_
