#pragma once
// `attnscope bench --help`, and the legend printed above the table section.

extern const char* const kBenchHelp;
extern const char* const kBenchTableLegend;
