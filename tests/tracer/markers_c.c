/* The markers, exactly as a user gets them. */
#include <perpi.h>
