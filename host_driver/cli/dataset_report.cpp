#include "dataset_report.h"
