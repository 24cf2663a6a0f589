//===- GemmAttrs.cpp - gemm dialect attributes ---------------------------===//

#include "gemmc/Dialect/Gemm/IR/GemmAttrs.h"
#include "gemmc/Dialect/Gemm/IR/GemmDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::gemm;

#include "gemmc/Dialect/Gemm/IR/GemmEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "gemmc/Dialect/Gemm/IR/GemmAttrs.cpp.inc"

void GemmDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "gemmc/Dialect/Gemm/IR/GemmAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static bool isSupportedElementType(Type type) {
  return type.isF32() || type.isF16() || type.isBF16();
}

/// Parses `<type> <layout>`, e.g. `f32 row`.
static ParseResult parseMatrix(AsmParser &parser, StringRef name, Type &type,
                               Layout &layout) {
  StringRef layoutName;
  if (parser.parseKeyword(name) || parser.parseEqual() ||
      parser.parseType(type))
    return failure();
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseKeyword(&layoutName))
    return failure();
  std::optional<Layout> parsed = symbolizeLayout(layoutName);
  if (!parsed)
    return parser.emitError(loc, "expected 'row' or 'col'");
  layout = *parsed;
  return success();
}

//===----------------------------------------------------------------------===//
// ProblemAttr
//===----------------------------------------------------------------------===//

Attribute ProblemAttr::parse(AsmParser &parser, Type) {
  SmallVector<int64_t, 3> sizes;
  SMLoc sizesLoc;
  Type aType, bType, cType, accType;
  Layout aLayout, bLayout, cLayout;
  if (parser.parseLess())
    return {};
  sizesLoc = parser.getCurrentLocation();
  if (parser.parseDimensionList(sizes, /*allowDynamic=*/false,
                                /*withTrailingX=*/false))
    return {};
  if (sizes.size() != 3) {
    parser.emitError(sizesLoc, "expected MxNxK");
    return {};
  }
  if (parser.parseComma() || parseMatrix(parser, "a", aType, aLayout) ||
      parser.parseComma() || parseMatrix(parser, "b", bType, bLayout) ||
      parser.parseComma() || parseMatrix(parser, "c", cType, cLayout) ||
      parser.parseComma() || parser.parseKeyword("acc") ||
      parser.parseEqual() || parser.parseType(accType) ||
      parser.parseGreater())
    return {};
  return ProblemAttr::getChecked(
      [&] { return parser.emitError(sizesLoc); }, parser.getContext(),
      sizes[0], sizes[1], sizes[2], aType, aLayout, bType, bLayout, cType,
      cLayout, accType);
}

void ProblemAttr::print(AsmPrinter &printer) const {
  printer << "<" << getM() << "x" << getN() << "x" << getK();
  printer << ", a = " << getAType() << " " << stringifyLayout(getALayout());
  printer << ", b = " << getBType() << " " << stringifyLayout(getBLayout());
  printer << ", c = " << getCType() << " " << stringifyLayout(getCLayout());
  printer << ", acc = " << getAccType() << ">";
}

LogicalResult
ProblemAttr::verify(function_ref<InFlightDiagnostic()> emitError, int64_t m,
                    int64_t n, int64_t k, Type aType, Layout, Type bType,
                    Layout, Type cType, Layout, Type accType) {
  if (m <= 0 || n <= 0 || k <= 0)
    return emitError() << "problem sizes must be positive, got " << m << "x"
                       << n << "x" << k;
  for (Type type : {aType, bType, cType})
    if (!isSupportedElementType(type))
      return emitError() << "element type must be f32, f16 or bf16, got "
                         << type;
  if (!accType.isF32())
    return emitError() << "accumulator type must be f32, got " << accType;
  return success();
}

//===----------------------------------------------------------------------===//
// ScheduleAttr
//===----------------------------------------------------------------------===//

Attribute ScheduleAttr::parse(AsmParser &parser, Type) {
  SmallVector<int64_t, 3> tile;
  bool coalesce = false;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseKeyword("tile") ||
      parser.parseEqual() ||
      parser.parseDimensionList(tile, /*allowDynamic=*/false,
                                /*withTrailingX=*/false))
    return {};
  while (succeeded(parser.parseOptionalComma())) {
    StringRef directive;
    SMLoc directiveLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&directive))
      return {};
    if (directive != "coalesce") {
      parser.emitError(directiveLoc, "unknown schedule directive '")
          << directive << "'";
      return {};
    }
    coalesce = true;
  }
  if (parser.parseGreater())
    return {};
  return ScheduleAttr::getChecked([&] { return parser.emitError(loc); },
                                  parser.getContext(), tile, coalesce);
}

void ScheduleAttr::print(AsmPrinter &printer) const {
  printer << "<tile = ";
  llvm::interleave(getTile(), printer, "x");
  if (getCoalesce())
    printer << ", coalesce";
  printer << ">";
}

LogicalResult
ScheduleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                     ArrayRef<int64_t> tile, bool) {
  if (tile.size() != 3)
    return emitError() << "tile must have 3 sizes (BMxBNxBK), got "
                       << tile.size();
  if (llvm::any_of(tile, [](int64_t s) { return s <= 0; }))
    return emitError() << "tile sizes must be positive";
  return success();
}

//===----------------------------------------------------------------------===//
// LaunchAttr
//===----------------------------------------------------------------------===//

static void printGridDim(AsmPrinter &printer, GridDim dim) {
  printer << stringifyDim(dim.dim);
  if (dim.dim != Dim::One)
    printer << " / " << dim.divisor;
}

static ParseResult parseGridDim(AsmParser &parser, GridDim &dim) {
  SMLoc loc = parser.getCurrentLocation();
  int64_t one;
  OptionalParseResult number = parser.parseOptionalInteger(one);
  if (number.has_value()) {
    if (failed(*number))
      return failure();
    if (one != 1)
      return parser.emitError(loc, "expected 1 or DIM / DIVISOR");
    dim = GridDim{Dim::One, 1};
    return success();
  }
  StringRef name;
  if (parser.parseKeyword(&name))
    return failure();
  std::optional<Dim> parsed = symbolizeDim(name);
  if (!parsed || *parsed == Dim::One)
    return parser.emitError(loc, "expected M, N or K");
  dim.dim = *parsed;
  if (parser.parseSlash() || parser.parseInteger(dim.divisor))
    return failure();
  if (dim.divisor <= 0)
    return parser.emitError(loc, "grid divisor must be positive");
  return success();
}

Attribute LaunchAttr::parse(AsmParser &parser, Type) {
  SmallVector<int64_t, 3> block;
  SmallVector<GridDim, 3> grid;
  int64_t shared = 0;
  auto parseBlock = [&]() -> ParseResult {
    return parser.parseInteger(block.emplace_back());
  };
  auto parseGrid = [&]() -> ParseResult {
    return parseGridDim(parser, grid.emplace_back());
  };
  if (parser.parseLess() || parser.parseKeyword("block") ||
      parser.parseEqual() ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                     parseBlock) ||
      parser.parseComma() || parser.parseKeyword("grid") ||
      parser.parseEqual() ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                     parseGrid) ||
      parser.parseComma() || parser.parseKeyword("shared") ||
      parser.parseEqual() || parser.parseInteger(shared) ||
      parser.parseGreater())
    return {};
  if (block.size() != 3 || grid.size() != 3) {
    parser.emitError(parser.getNameLoc(),
                     "block and grid must have 3 entries each");
    return {};
  }
  return LaunchAttr::get(parser.getContext(), block, grid, shared);
}

void LaunchAttr::print(AsmPrinter &printer) const {
  printer << "<block = [";
  llvm::interleaveComma(getBlock(), printer);
  printer << "], grid = [";
  llvm::interleaveComma(getGrid(), printer,
                        [&](GridDim dim) { printGridDim(printer, dim); });
  printer << "], shared = " << getSharedBytes() << ">";
}
