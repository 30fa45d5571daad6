#include "network/fold.h"
