// Package ibmodel runs the thesis' own simulator beside flitsim's: the
// Mellanox OMNeT++ InfiniBand flit model (the 2013 release,
// garyson/ib_flit_sim d846635, built on OMNeT++ 4.6.1 outside this
// repository; docs/ibmodel.md says how). It is a witness, as routing/opensm
// is for the routing engines: given the network, forwarding tables,
// hardware and traffic of a flitsim point, it writes the model's inputs
// (Write: a NED network, forwarding vectors, destination and service-level
// sequences, an ini file), runs the model (Model.Run) and reads its scalar
// results (ReadScalars), so that both simulators can be compared on exactly
// the same inputs.
//
// What the model can and cannot be given:
//
//   - Network: every switch and HCA, each cable once with its rate and
//     delay; a switch's cabled ports are numbered 0..k−1 in port order (the
//     model's switch has no uncabled ports). HCAs must have one cable.
//   - Tables: destination-based forwarding. A packet keeps one VL from its
//     source to its sink, its service level (the model has no SL-to-VL
//     tables), so tables that change the VL on the way are refused (use
//     path_vls with torus-2qos). The released model takes one SL per
//     sending application; per-destination SLs need the model's one
//     addition of docs/ibmodel.md (Patched).
//   - Traffic: the destinations of flitsim's pattern, in flitsim's order,
//     as each HCA's destination sequence; at loads below 1 the model draws
//     its own exponential gaps between messages, closed loop (its next
//     message waits for the last flit of the previous one to be made).
//   - Hardware: every parameter the model reads is derived from
//     fabric.Hardware (Params); what the model cannot represent is listed
//     there.
package ibmodel
