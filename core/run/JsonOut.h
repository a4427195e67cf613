#pragma once
// The pieces run/'s JSON writers share: floats as the shortest text that reads back exactly (null for a
// non-finite one: JSON has no infinities), strings and token lists escaped, bad UTF-8 replaced.

#include "core/base/Matrix.h"
#include "core/text/Token.h"

#include <ostream>
#include <string>
#include <vector>

namespace core::json {

void writeFloat(std::ostream& out, float v);
void writeFloats(std::ostream& out, const float* p, int n);
void writeFloats(std::ostream& out, const std::vector<float>& v);
/// A matrix as an array of row arrays, one row per line.
void writeMatrix(std::ostream& out, const Matrix& m);
std::string quoted(const std::string& s);
std::string tokenTexts(const std::vector<Token>& tokens);

} // namespace core::json
