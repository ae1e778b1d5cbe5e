/* symshape: the umbrella header. */
#ifndef SYMSHAPE_SYMSHAPE_H
#define SYMSHAPE_SYMSHAPE_H

#include "symshape/expr.h"
#include "symshape/facts.h"

#endif
