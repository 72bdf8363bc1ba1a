#include "jobfile/job.h"

namespace ds::jobfile {

bool is_random(Rw rw) {
    return rw == Rw::randread || rw == Rw::randwrite || rw == Rw::randtrim || rw == Rw::randrw ||
           rw == Rw::randtrimwrite;
}

const Origin* Job::origin_of(std::string_view option) const {
    auto it = set.find(option);
    return it == set.end() ? nullptr : &it->second;
}

}  // namespace ds::jobfile
