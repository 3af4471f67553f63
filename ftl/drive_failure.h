// A drive that cannot go on: worn out (bad blocks past its spare), or out of
// erased blocks after failures. Real firmware turns such a drive read-only;
// the simulator ends the run there, with the results up to that point
// (app/runner.cpp catches it), instead of a crash or no results at all.
#pragma once

#include <stdexcept>

namespace ssdtwin {

class DriveFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace ssdtwin
