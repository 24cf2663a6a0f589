//===- GemmAttrs.cpp - gemm dialect attributes ----------------------------===//

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
  return type.isF32() || type.isF16() || type.isBF16() ||
         isa<Float8E4M3FNType, Float8E5M2Type>(type);
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
      parser.parseEqual() || parser.parseType(accType))
    return {};
  gemmc::MathMode math = gemmc::MathMode::Exact;
  if (succeeded(parser.parseOptionalComma())) {
    StringRef keyword;
    SMLoc mathLoc;
    if (parser.parseKeyword("math") || parser.parseEqual() ||
        (mathLoc = parser.getCurrentLocation(),
         parser.parseKeyword(&keyword)))
      return {};
    if (keyword == "tf32x3") {
      math = gemmc::MathMode::TF32x3;
    } else if (keyword == "fast_accumulate") {
      math = gemmc::MathMode::FastAccumulate;
    } else {
      parser.emitError(mathLoc, "expected 'tf32x3' or 'fast_accumulate'");
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return ProblemAttr::getChecked([&] { return parser.emitError(sizesLoc); },
                                 parser.getContext(), sizes[0], sizes[1],
                                 sizes[2], aType, aLayout, bType, bLayout,
                                 cType, cLayout, accType, math);
}

void ProblemAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printer.printDimensionList({getM(), getN(), getK()});
  printer << ", a = " << getAType() << " " << stringifyLayout(getALayout());
  printer << ", b = " << getBType() << " " << stringifyLayout(getBLayout());
  printer << ", c = " << getCType() << " " << stringifyLayout(getCLayout());
  printer << ", acc = " << getAccType();
  if (getMath() == gemmc::MathMode::TF32x3)
    printer << ", math = tf32x3";
  if (getMath() == gemmc::MathMode::FastAccumulate)
    printer << ", math = fast_accumulate";
  printer << ">";
}

LogicalResult ProblemAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  int64_t m, int64_t n, int64_t k, Type aType,
                                  Layout, Type bType, Layout, Type cType,
                                  Layout, Type accType, gemmc::MathMode math) {
  // ShapedType::kDynamic (`?`): given at launch.
  auto positive = [](int64_t size) {
    return size > 0 || ShapedType::isDynamic(size);
  };
  if (!positive(m) || !positive(n) || !positive(k))
    return emitError() << "problem sizes must be positive or '?', got " << m
                       << "x" << n << "x" << k;
  for (Type type : {aType, bType, cType})
    if (!isSupportedElementType(type))
      return emitError() << "element type must be f32, f16, bf16, f8E4M3FN or "
                            "f8E5M2, got "
                         << type;
  if (!accType.isF32())
    return emitError() << "accumulator type must be f32, got " << accType;
  if (math == gemmc::MathMode::TF32)
    return emitError() << "math = tf32 follows from f32 inputs on tensor "
                          "cores: the problem states only tf32x3 or "
                          "fast_accumulate";
  if (math == gemmc::MathMode::TF32x3 && !aType.isF32())
    return emitError() << "math = tf32x3 needs f32 inputs, got " << aType;
  if (math == gemmc::MathMode::FastAccumulate &&
      !isa<Float8E4M3FNType, Float8E5M2Type>(aType))
    return emitError() << "math = fast_accumulate needs FP8 inputs, got "
                       << aType;
  return success();
}

//===----------------------------------------------------------------------===//
// ScheduleAttr
//===----------------------------------------------------------------------===//

using gemmc::FlagField;
using gemmc::IntField;
using gemmc::ListField;
using gemmc::OperandsField;
using gemmc::OptionalIntField;
using gemmc::ShapeField;

namespace {
/// Parses the value of the entry `key` into the field of that name
/// (visitScheduleFields), by the field's kind.
struct ScheduleFieldParser {
  AsmParser &parser;
  StringRef key;
  bool found = false;
  ParseResult result = success();

  template <typename Field> bool matches(const Field &f) {
    if (found || f.key != key)
      return false;
    found = true;
    return true;
  }
  template <size_t N>
  ParseResult parseShape(std::array<int64_t, N> &target) {
    SmallVector<int64_t, 4> shape;
    SMLoc loc = parser.getCurrentLocation();
    if (parser.parseEqual() ||
        parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                  /*withTrailingX=*/false))
      return failure();
    if (shape.size() != N)
      return parser.emitError(loc)
             << key << " must have " << N << " sizes, got " << shape.size();
    llvm::copy(shape, target.begin());
    return success();
  }
  template <size_t N> void operator()(ShapeField<std::array<int64_t, N>> f) {
    if (matches(f))
      result = parseShape(f.value);
  }
  template <size_t N>
  void operator()(ShapeField<std::optional<std::array<int64_t, N>>> f) {
    if (matches(f))
      result = parseShape(f.value.emplace());
  }
  template <size_t N>
  void operator()(ListField<std::optional<std::array<int64_t, N>>> f) {
    if (!matches(f))
      return;
    SmallVector<int64_t, 4> values;
    SMLoc loc = parser.getCurrentLocation();
    auto parseValue = [&]() -> ParseResult {
      return parser.parseInteger(values.emplace_back());
    };
    if (parser.parseEqual() ||
        parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                       parseValue)) {
      result = failure();
      return;
    }
    if (values.size() != N) {
      result = parser.emitError(loc) << key << " must have " << N
                                     << " entries, got " << values.size();
      return;
    }
    llvm::copy(values, f.value.emplace().begin());
  }
  void operator()(FlagField<bool> f) {
    if (matches(f))
      f.value = true;
  }
  void operator()(IntField<int64_t> f) {
    if (matches(f))
      result = failure(parser.parseEqual() || parser.parseInteger(f.value));
  }
  void operator()(OptionalIntField<std::optional<int64_t>> f) {
    if (!matches(f))
      return;
    if (parser.parseEqual()) {
      result = failure();
      return;
    }
    // The zero's spelling: a keyword, or `?`.
    bool zero = f.zeroKeyword == "?"
                    ? succeeded(parser.parseOptionalQuestion())
                    : !f.zeroKeyword.empty() &&
                          succeeded(parser.parseOptionalKeyword(f.zeroKeyword));
    if (zero) {
      f.value = 0;
      return;
    }
    result = parser.parseInteger(f.value.emplace());
  }
  void operator()(OperandsField<bool> f) {
    if (!matches(f))
      return;
    auto parseOperand = [&]() -> ParseResult {
      StringRef operand;
      SMLoc loc = parser.getCurrentLocation();
      if (parser.parseKeyword(&operand))
        return failure();
      if (operand == "a" || operand == "b") {
        (operand == "a" ? f.a : f.b) = true;
        return success();
      }
      if (operand == "c" && f.c) {
        *f.c = true;
        return success();
      }
      return parser.emitError(loc, f.c ? "expected 'a', 'b' or 'c'"
                                       : "expected 'a' or 'b'");
    };
    result = failure(parser.parseEqual() ||
                     parser.parseCommaSeparatedList(
                         AsmParser::Delimiter::Square, parseOperand));
  }
};
} // namespace

FailureOr<gemmc::Schedule>
mlir::gemm::parseScheduleParameter(AsmParser &parser) {
  gemmc::Schedule s;
  auto parseEntry = [&]() -> ParseResult {
    std::string key;
    SMLoc loc = parser.getCurrentLocation();
    if (parser.parseKeywordOrString(&key))
      return failure();
    ScheduleFieldParser field{parser, key};
    gemmc::visitScheduleFields(field, s);
    if (!field.found)
      return parser.emitError(loc, "unknown schedule directive '")
             << key << "'";
    return field.result;
  };
  if (parser.parseCommaSeparatedList(parseEntry))
    return failure();
  return s;
}

void mlir::gemm::printScheduleParameter(AsmPrinter &printer,
                                        const gemmc::Schedule &s) {
  gemmc::printScheduleFields(printer.getStream(), s);
}

void ModelDiagnostics::operator()(const gemmc::Diagnostic &diagnostic) {
  switch (diagnostic.severity) {
  case gemmc::Diagnostic::Severity::Error:
    last.reset();
    last.emplace(emitError());
    *last << diagnostic.message;
    break;
  case gemmc::Diagnostic::Severity::Note:
    if (last)
      last->attachNote() << diagnostic.message;
    break;
  case gemmc::Diagnostic::Severity::Warning:
    break;
  }
}

LogicalResult ScheduleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   gemmc::Schedule schedule) {
  ModelDiagnostics diagnostics(emitError);
  return success(gemmc::verifyScheduleStructure(schedule, diagnostics));
}

gemmc::ElementType mlir::gemm::getElementTypeModel(Type type) {
  if (type.isF16())
    return gemmc::ElementType::F16;
  if (type.isBF16())
    return gemmc::ElementType::BF16;
  if (isa<Float8E4M3FNType>(type))
    return gemmc::ElementType::E4M3;
  if (isa<Float8E5M2Type>(type))
    return gemmc::ElementType::E5M2;
  return gemmc::ElementType::F32;
}

static gemmc::MatrixLayout getMatrixLayout(Layout layout) {
  return layout == Layout::RowMajor ? gemmc::MatrixLayout::Row
                                    : gemmc::MatrixLayout::Col;
}

gemmc::Problem mlir::gemm::getProblemModel(ProblemAttr attr) {
  gemmc::Problem problem;
  auto size = [](int64_t value) -> std::optional<int64_t> {
    if (ShapedType::isDynamic(value))
      return std::nullopt;
    return value;
  };
  problem.m = size(attr.getM());
  problem.n = size(attr.getN());
  problem.k = size(attr.getK());
  problem.a = getElementTypeModel(attr.getAType());
  problem.b = getElementTypeModel(attr.getBType());
  problem.c = getElementTypeModel(attr.getCType());
  problem.acc = getElementTypeModel(attr.getAccType());
  problem.aLayout = getMatrixLayout(attr.getALayout());
  problem.bLayout = getMatrixLayout(attr.getBLayout());
  problem.cLayout = getMatrixLayout(attr.getCLayout());
  problem.tf32x3 = attr.getMath() == gemmc::MathMode::TF32x3;
  problem.tf32 = problem.tf32x3;
  problem.fastAccumulate = attr.getMath() == gemmc::MathMode::FastAccumulate;
  return problem;
}

gemmc::Problem mlir::gemm::getKernelProblemModel(Operation *func) {
  auto attr = func->getAttrOfType<ProblemAttr>(kProblemAttr);
  if (!attr)
    return {};
  gemmc::Problem problem = getProblemModel(attr);
  if (auto batch = func->getAttrOfType<DenseI64ArrayAttr>(kBatchAttr))
    setBatchModel(problem, batch.asArrayRef());
  if (auto groups = func->getAttrOfType<IntegerAttr>(kGroupsAttr))
    setGroupsModel(problem, groups.getInt(), func->hasAttr(kGroupTableAttr));
  if (auto scales = func->getAttrOfType<StringAttr>(kScalesAttr))
    problem.scales = gemmc::scaleKindNamed(scales.getValue());
  problem.alphaBeta = func->hasAttr(kAlphaBetaAttr);
  if (auto bias = func->getAttrOfType<StringAttr>(kBiasAttr))
    problem.bias = bias.getValue() == gemmc::stringify(gemmc::BiasKind::Row)
                       ? gemmc::BiasKind::Row
                       : gemmc::BiasKind::Col;
  problem.residual = func->hasAttr(kResidualAttr);
  problem.amax = func->hasAttr(kAmaxAttr);
  problem.outputScale = func->hasAttr(kOutputScaleAttr);
  if (auto activation = func->getAttrOfType<StringAttr>(kActivationAttr))
    problem.activation = gemmc::activationNamed(activation.getValue())
                             .value_or(gemmc::Activation::None);
  return problem;
}

void mlir::gemm::setBatchModel(gemmc::Problem &problem,
                               ArrayRef<int64_t> batch) {
  if (batch.size() != 4)
    return;
  problem.batched = true;
  if (!ShapedType::isDynamic(batch.front()))
    problem.batchCount = batch.front();
  if (!problem.isDynamic())
    problem.batchStrides = {batch[1], batch[2], batch[3]};
}

void mlir::gemm::setGroupsModel(gemmc::Problem &problem, int64_t groups,
                                bool groupTable) {
  problem.grouped = true;
  problem.groupTable = groupTable;
  if (!ShapedType::isDynamic(groups))
    problem.groupCount = groups;
}

//===----------------------------------------------------------------------===//
// LaunchAttr
//===----------------------------------------------------------------------===//

static void printGridDim(AsmPrinter &printer, GridDim dim) {
  // A fixed number of blocks (1, or split-K's splits).
  if (dim.dim == Dim::One) {
    printer << dim.divisor;
    return;
  }
  printer << stringifyDim(dim.dim);
  if (dim.dim != Dim::SMs && dim.dim != Dim::Splits)
    printer << " / " << dim.divisor;
}

static ParseResult parseGridDim(AsmParser &parser, GridDim &dim) {
  SMLoc loc = parser.getCurrentLocation();
  int64_t count = 0;
  OptionalParseResult number = parser.parseOptionalInteger(count);
  if (number.has_value()) {
    if (failed(*number))
      return failure();
    if (count < 1)
      return parser.emitError(loc, "expected a positive count or DIM / DIVISOR");
    dim = GridDim{Dim::One, count};
    return success();
  }
  StringRef name;
  if (parser.parseKeyword(&name))
    return failure();
  std::optional<Dim> parsed = symbolizeDim(name);
  if (!parsed || *parsed == Dim::One)
    return parser.emitError(loc, "expected M, N, K, B, SM or splits");
  dim.dim = *parsed;
  // SM: one block per multiprocessor (a persistent grid); splits: split-K's
  // splits, chosen at launch.
  if (dim.dim == Dim::SMs || dim.dim == Dim::Splits) {
    dim.divisor = 1;
    return success();
  }
  if (parser.parseSlash() || parser.parseInteger(dim.divisor))
    return failure();
  if (dim.divisor <= 0)
    return parser.emitError(loc, "grid divisor must be positive");
  return success();
}

Attribute LaunchAttr::parse(AsmParser &parser, Type) {
  SmallVector<int64_t, 3> block;
  SmallVector<GridDim, 3> grid;
  int64_t shared = 0, index = 32;
  SmallVector<int64_t, 3> ldMultiple = {1, 1, 1};
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
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, parseGrid) ||
      parser.parseComma() || parser.parseKeyword("shared") ||
      parser.parseEqual() || parser.parseInteger(shared))
    return {};
  if (succeeded(parser.parseOptionalComma())) {
    bool hasIndex = succeeded(parser.parseOptionalKeyword("index"));
    if (hasIndex && (parser.parseEqual() || parser.parseInteger(index)))
      return {};
    if (!hasIndex || succeeded(parser.parseOptionalComma())) {
      ldMultiple.clear();
      auto parseMultiple = [&]() -> ParseResult {
        return parser.parseInteger(ldMultiple.emplace_back());
      };
      if (parser.parseKeyword("ld_multiple") || parser.parseEqual() ||
          parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                         parseMultiple))
        return {};
    }
  }
  if (parser.parseGreater())
    return {};
  if (block.size() != 3 || grid.size() != 3 || ldMultiple.size() != 3) {
    parser.emitError(parser.getNameLoc(),
                     "block, grid and ld_multiple must have 3 entries each");
    return {};
  }
  if (index != 32 && index != 64) {
    parser.emitError(parser.getNameLoc(), "index must be 32 or 64");
    return {};
  }
  return LaunchAttr::get(parser.getContext(), block, grid, shared,
                         unsigned(index), ldMultiple);
}

void LaunchAttr::print(AsmPrinter &printer) const {
  printer << "<block = [";
  llvm::interleaveComma(getBlock(), printer);
  printer << "], grid = [";
  llvm::interleaveComma(getGrid(), printer,
                        [&](GridDim dim) { printGridDim(printer, dim); });
  printer << "], shared = " << getSharedBytes();
  if (getIndexBitwidth() != 32)
    printer << ", index = " << getIndexBitwidth();
  if (llvm::any_of(getLdMultiple(), [](int64_t m) { return m != 1; })) {
    printer << ", ld_multiple = [";
    llvm::interleaveComma(getLdMultiple(), printer);
    printer << "]";
  }
  printer << ">";
}

LaunchAttr LaunchAttr::withSharedBytes(int64_t bytes) const {
  return LaunchAttr::get(getContext(), getBlock(), getGrid(), bytes,
                         getIndexBitwidth(), getLdMultiple());
}

LaunchAttr LaunchAttr::withIndexBitwidth(unsigned bits) const {
  return LaunchAttr::get(getContext(), getBlock(), getGrid(), getSharedBytes(),
                         bits, getLdMultiple());
}

LaunchAttr LaunchAttr::withLdMultiple(ArrayRef<int64_t> multiples) const {
  return LaunchAttr::get(getContext(), getBlock(), getGrid(), getSharedBytes(),
                         getIndexBitwidth(), multiples);
}
