//===- Printer.h - schedule files from the schedule model ------*- C++ -*-===//
//
// The DSL's printer: a problem, a schedule's directives and a whole kernel
// written back as a schedule file spells them (docs/dsl.md), from the
// model (gemmc/Schedule/Schedule.h) that the front end builds from one.
// What the printer writes, the parser reads back to the same model; the
// tuner writes its candidates and families through it.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_FRONTEND_PRINTER_H
#define GEMMC_FRONTEND_PRINTER_H

#include "gemmc/Schedule/Schedule.h"
#include "llvm/Support/raw_ostream.h"

namespace gemmc {

/// The problem's statements, one a line after `indent`: sizes (`?` for
/// those given at launch), the matrices, and what differs from the
/// defaults (math, epilogue, bias, activation, batch).
void printProblem(llvm::raw_ostream &os, const Problem &problem,
                  llvm::StringRef indent);

/// The schedule's directives, one a line after `indent`, in a fixed order.
void printDirectives(llvm::raw_ostream &os, const Schedule &schedule,
                     llvm::StringRef indent);

/// A whole schedule file: `kernel NAME { problem {...} schedule {...} }`.
void printKernel(llvm::raw_ostream &os, llvm::StringRef name,
                 const Problem &problem, const Schedule &schedule);

} // namespace gemmc

#endif // GEMMC_FRONTEND_PRINTER_H
