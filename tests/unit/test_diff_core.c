/* placeholder replaced below */
#include "unit.h"
int main(void) { UNIT_CHECK(1, "x"); return unit_finish(); }
