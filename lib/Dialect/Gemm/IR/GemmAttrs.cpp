//===- GemmAttrs.cpp - gemm dialect attributes ---------------------------===//

#include "gemmc/Dialect/Gemm/IR/GemmAttrs.h"
#include "gemmc/Dialect/Gemm/IR/GemmDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringSwitch.h"
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
  if (parser.parseDimensionList(sizes, /*allowDynamic=*/true,
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
  printer << "<";
  printer.printDimensionList({getM(), getN(), getK()});
  printer << ", a = " << getAType() << " " << stringifyLayout(getALayout());
  printer << ", b = " << getBType() << " " << stringifyLayout(getBLayout());
  printer << ", c = " << getCType() << " " << stringifyLayout(getCLayout());
  printer << ", acc = " << getAccType() << ">";
}

LogicalResult
ProblemAttr::verify(function_ref<InFlightDiagnostic()> emitError, int64_t m,
                    int64_t n, int64_t k, Type aType, Layout, Type bType,
                    Layout, Type cType, Layout, Type accType) {
  // ShapedType::kDynamic (`?`): given at launch.
  auto positive = [](int64_t size) {
    return size > 0 || ShapedType::isDynamic(size);
  };
  if (!positive(m) || !positive(n) || !positive(k))
    return emitError() << "problem sizes must be positive or '?', got " << m
                       << "x" << n << "x" << k;
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

namespace {
/// ScheduleAttr's parameters while parsing.
struct ScheduleFields {
  SmallVector<int64_t, 3> tile;
  bool coalesce = false;
  SmallVector<int64_t, 2> registerTile, warpTile;
  bool promoteA = false, promoteB = false;
  int64_t pad = 0;
  bool transposeA = false;
  SmallVector<int64_t, 4> vectorize;
  int64_t stages = 1;
  bool registerDoubleBuffer = false;
  int64_t raster = 0;
  int64_t unroll = -1;
  SmallVector<int64_t, 3> mma;
  bool cpAsync = false;
  bool swizzle = false;
  bool splitEdges = false;
};
} // namespace

static ParseResult parseShape(AsmParser &parser,
                              SmallVectorImpl<int64_t> &shape) {
  return failure(parser.parseEqual() ||
                 parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                           /*withTrailingX=*/false));
}

static ParseResult parseScheduleEntry(AsmParser &parser, StringRef key,
                                      ScheduleFields &f) {
  if (key == "tile")
    return parseShape(parser, f.tile);
  if (key == "register_tile")
    return parseShape(parser, f.registerTile);
  if (key == "warp_tile")
    return parseShape(parser, f.warpTile);
  if (key == "mma")
    return parseShape(parser, f.mma);
  if (key == "coalesce") {
    f.coalesce = true;
    return success();
  }
  if (key == "transpose_a") {
    f.transposeA = true;
    return success();
  }
  if (key == "registers") {
    f.registerDoubleBuffer = true;
    return success();
  }
  if (key == "cp_async") {
    f.cpAsync = true;
    return success();
  }
  if (key == "swizzle") {
    f.swizzle = true;
    return success();
  }
  if (key == "split_edges") {
    f.splitEdges = true;
    return success();
  }
  if (key == "promote") {
    auto parseOperand = [&]() -> ParseResult {
      StringRef operand;
      SMLoc loc = parser.getCurrentLocation();
      if (parser.parseKeyword(&operand))
        return failure();
      if (operand != "a" && operand != "b")
        return parser.emitError(loc, "expected 'a' or 'b'");
      (operand == "a" ? f.promoteA : f.promoteB) = true;
      return success();
    };
    return failure(parser.parseEqual() ||
                   parser.parseCommaSeparatedList(
                       AsmParser::Delimiter::Square, parseOperand));
  }
  if (key == "vectorize") {
    auto parseWidth = [&]() -> ParseResult {
      return parser.parseInteger(f.vectorize.emplace_back());
    };
    return failure(parser.parseEqual() ||
                   parser.parseCommaSeparatedList(
                       AsmParser::Delimiter::Square, parseWidth));
  }
  if (key == "unroll") {
    if (parser.parseEqual())
      return failure();
    if (succeeded(parser.parseOptionalKeyword("full"))) {
      f.unroll = 0;
      return success();
    }
    return parser.parseInteger(f.unroll);
  }
  int64_t *value = llvm::StringSwitch<int64_t *>(key)
                       .Case("pad", &f.pad)
                       .Case("stages", &f.stages)
                       .Case("raster", &f.raster)
                       .Default(nullptr);
  if (!value)
    return parser.emitError(parser.getCurrentLocation(),
                            "unknown schedule directive '")
           << key << "'";
  return failure(parser.parseEqual() || parser.parseInteger(*value));
}

Attribute ScheduleAttr::parse(AsmParser &parser, Type) {
  ScheduleFields f;
  SMLoc loc = parser.getCurrentLocation();
  auto parseEntry = [&]() -> ParseResult {
    std::string key;
    if (parser.parseKeywordOrString(&key))
      return failure();
    return parseScheduleEntry(parser, key, f);
  };
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::LessGreater,
                                     parseEntry))
    return {};
  return ScheduleAttr::getChecked(
      [&] { return parser.emitError(loc); }, parser.getContext(), f.tile,
      f.coalesce, f.registerTile, f.warpTile, f.promoteA, f.promoteB, f.pad,
      f.transposeA, f.vectorize, f.stages, f.registerDoubleBuffer, f.raster,
      f.unroll, f.mma, f.cpAsync, f.swizzle, f.splitEdges);
}

void ScheduleAttr::print(AsmPrinter &printer) const {
  printer << "<tile = ";
  llvm::interleave(getTile(), printer, "x");
  if (getCoalesce())
    printer << ", coalesce";
  if (!getRegisterTile().empty()) {
    printer << ", register_tile = ";
    llvm::interleave(getRegisterTile(), printer, "x");
  }
  if (!getWarpTile().empty()) {
    printer << ", warp_tile = ";
    llvm::interleave(getWarpTile(), printer, "x");
  }
  if (hasPromotion()) {
    printer << ", promote = [";
    if (getPromoteA())
      printer << "a" << (getPromoteB() ? ", " : "");
    if (getPromoteB())
      printer << "b";
    printer << "]";
  }
  if (getPad())
    printer << ", pad = " << getPad();
  if (getTransposeA())
    printer << ", transpose_a";
  if (getSwizzle())
    printer << ", swizzle";
  if (!getVectorize().empty()) {
    printer << ", vectorize = [";
    llvm::interleaveComma(getVectorize(), printer);
    printer << "]";
  }
  if (getStages() != 1)
    printer << ", stages = " << getStages();
  if (getRegisterDoubleBuffer())
    printer << ", registers";
  if (getCpAsync())
    printer << ", cp_async";
  if (getRaster())
    printer << ", raster = " << getRaster();
  if (getUnroll() == 0)
    printer << ", unroll = full";
  else if (getUnroll() > 0)
    printer << ", unroll = " << getUnroll();
  if (!getMma().empty()) {
    printer << ", mma = ";
    llvm::interleave(getMma(), printer, "x");
  }
  if (getSplitEdges())
    printer << ", split_edges";
  printer << ">";
}

LogicalResult ScheduleAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, ArrayRef<int64_t> tile, bool,
    ArrayRef<int64_t> registerTile, ArrayRef<int64_t> warpTile, bool promoteA,
    bool promoteB, int64_t pad, bool transposeA, ArrayRef<int64_t> vectorize,
    int64_t stages, bool, int64_t raster, int64_t unroll, ArrayRef<int64_t> mma,
    bool cpAsync, bool swizzle, bool) {
  if (tile.size() != 3)
    return emitError() << "tile must have 3 sizes (BMxBNxBK), got "
                       << tile.size();
  auto positive = [](ArrayRef<int64_t> sizes) {
    return llvm::all_of(sizes, [](int64_t s) { return s > 0; });
  };
  if (!positive(tile))
    return emitError() << "tile sizes must be positive";
  if (!registerTile.empty() && (registerTile.size() != 2 ||
                                !positive(registerTile) ||
                                tile[0] % registerTile[0] ||
                                tile[1] % registerTile[1]))
    return emitError() << "register_tile must be TMxTN dividing the tile";
  if (!warpTile.empty() && (warpTile.size() != 2 || !positive(warpTile) ||
                            tile[0] % warpTile[0] || tile[1] % warpTile[1]))
    return emitError() << "warp_tile must be WMxWN dividing the tile";
  if (!vectorize.empty() &&
      (vectorize.size() != 4 || !llvm::all_of(vectorize, [](int64_t w) {
         return w == 1 || w == 2 || w == 4 || w == 8;
       })))
    return emitError() << "vectorize must be 4 widths of 1, 2, 4 or 8";
  if (pad < 0 || stages < 1 || raster < 0 || unroll < -1)
    return emitError() << "pad, stages, raster and unroll must be in range";
  if (transposeA && !promoteA)
    return emitError() << "transpose_a needs A promoted";
  if ((pad || stages > 1) && !promoteA && !promoteB)
    return emitError() << "pad and stages need promote";
  if (swizzle && (pad || transposeA || (!promoteA && !promoteB) ||
                  mma.empty()))
    return emitError() << "swizzle needs promote and mma, and neither pad "
                          "nor transpose_a";
  if (cpAsync && (stages < 2 || transposeA))
    return emitError() << "cp_async needs 2 or more stages and no transpose_a";
  if (!mma.empty() && (mma.size() != 3 || warpTile.empty() ||
                       !registerTile.empty()))
    return emitError() << "mma needs a warp_tile and no register_tile";
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
    return parser.emitError(loc, "expected M, N, K or B");
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
