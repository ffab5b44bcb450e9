module gpulint.io/bench/reference

go 1.19
