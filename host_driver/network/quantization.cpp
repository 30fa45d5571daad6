#include "network/quantization.h"
