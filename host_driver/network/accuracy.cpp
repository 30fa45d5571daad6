#include "network/accuracy.h"
