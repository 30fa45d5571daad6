#include "network/dataset_run.h"
