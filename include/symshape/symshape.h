/* symshape: the umbrella header. */
#ifndef SYMSHAPE_SYMSHAPE_H
#define SYMSHAPE_SYMSHAPE_H

#include "symshape/expr.h"
#include "symshape/facts.h"
#include "symshape/model.h"
#include "symshape/program.h"
#include "symshape/cache.h"
#include "symshape/storage.h"
#include "symshape/rules.h"
#include "symshape/diff.h"

#endif
