//! PageRank and reverse walks: dense values exchanged along the routes
//! every iteration.

use super::{KernelContext, LocalOutput, Packet, Payload, Routes};
use crate::part::out_degree;
use dyngraph_core::{DynamicStore, Graph, OutNeighbors, Result};

impl<S: DynamicStore> KernelContext<'_, S> {
    /// PageRank by power iteration, GAPBS's Jacobi form. With in-edges it
    /// pulls, as the single-machine kernel does: owners send each
    /// vertex's contribution (`score / out-degree`) to the workers that
    /// hold it as a ghost, then every owned vertex sums its in-neighbours'
    /// contributions from its worker's in store. Without, it pushes along
    /// out-edges, combining per destination before the sums leave the
    /// worker. Either way one `f32` per ghost per iteration. Values: the
    /// `f32` score's bits.
    pub(crate) fn pagerank(
        &mut self,
        routes: &Routes,
        damping: f32,
        max_iterations: usize,
        tolerance: f64,
    ) -> Result<LocalOutput> {
        let n = self.vertex_count;
        let seen = self
            .collective
            .sum(self.worker, vec![self.partition.owned.len() as u64])[0];
        let unseen = (n as u64).saturating_sub(seen);
        let base = (1.0 - damping) / n.max(1) as f32;
        let local_count = self.partition.ids.len();
        let mut scores = vec![1.0 / n.max(1) as f32; local_count];
        let mut sums = vec![0.0f32; local_count];
        let mut supersteps = Vec::new();
        let (mut iterations, mut last_change) = (0, 0.0);
        let snapshot = self.partition.out().snapshot();
        let pull = self.partition.incoming().is_some();
        // Pulling: `1 / out-degree` of each owned vertex, read once.
        let mut inverse_degree = Vec::new();
        let mut contributions = Vec::new();
        if pull {
            let view = self.partition.out().view(&snapshot)?;
            inverse_degree = vec![0.0f32; local_count];
            for &u in &self.partition.owned {
                let degree = out_degree(&view, u);
                if degree > 0 {
                    inverse_degree[u as usize] = 1.0 / degree as f32;
                }
            }
            contributions = vec![0.0f32; local_count];
        }
        for iteration in 0..max_iterations {
            let traffic = if pull {
                self.pull_sums(
                    routes,
                    &scores,
                    &inverse_degree,
                    &mut contributions,
                    &mut sums,
                )?
            } else {
                self.push_sums(routes, &snapshot, &scores, &mut sums)?
            };
            supersteps.push(traffic);
            let mut change = 0.0f64;
            for &v in &self.partition.owned {
                let new = base + damping * sums[v as usize];
                change += f64::from((new - scores[v as usize]).abs());
                scores[v as usize] = new;
            }
            if iteration == 0 && self.index() == 0 {
                // Vertices no worker has seen go from 1/n to the base score.
                change += unseen as f64 * f64::from((base - 1.0 / n.max(1) as f32).abs());
            }
            last_change = self.collective.sum_f64(self.worker, change);
            iterations += 1;
            if last_change < tolerance {
                break;
            }
        }
        Ok(LocalOutput {
            values: self.owned_values(|v| u64::from(scores[v as usize].to_bits())),
            supersteps,
            iterations,
            last_change,
            bottom_up_steps: 0,
        })
    }

    /// Pushing: each worker adds its owned vertices' contributions along
    /// their out-edges into `sums`, sends the ghosts' sums to their
    /// owners, and adds what it receives.
    fn push_sums(
        &mut self,
        routes: &Routes,
        snapshot: &S::Snapshot,
        scores: &[f32],
        sums: &mut [f32],
    ) -> Result<crate::mailbox::Traffic> {
        sums.iter_mut().for_each(|s| *s = 0.0);
        {
            let view = self.partition.out().view(snapshot)?;
            for &u in &self.partition.owned {
                let degree = out_degree(&view, u);
                if degree > 0 {
                    let contribution = scores[u as usize] / degree as f32;
                    for d in view.out_neighbors(u) {
                        sums[d as usize] += contribution;
                    }
                }
            }
        }
        let from = self.index() as u32;
        for (owner, list) in routes.ghosts.iter().enumerate() {
            if !list.is_empty() {
                let values = list.iter().map(|&g| sums[g as usize]).collect();
                self.packets.send(
                    owner,
                    Packet {
                        from,
                        payload: Payload::ToOwnerF32(values),
                    },
                );
            }
        }
        let (received, traffic) = self.round();
        for packet in received {
            if let Payload::ToOwnerF32(values) = packet.payload {
                for (&v, value) in routes.mirrors[packet.from as usize].iter().zip(values) {
                    sums[v as usize] += value;
                }
            }
        }
        Ok(traffic)
    }

    /// Pulling: owners send their ghosted vertices' contributions to the
    /// holders, then each owned vertex sums its in-neighbours'.
    fn pull_sums(
        &mut self,
        routes: &Routes,
        scores: &[f32],
        inverse_degree: &[f32],
        contributions: &mut [f32],
        sums: &mut [f32],
    ) -> Result<crate::mailbox::Traffic> {
        for &v in &self.partition.owned {
            contributions[v as usize] = scores[v as usize] * inverse_degree[v as usize];
        }
        let from = self.index() as u32;
        for (holder, list) in routes.mirrors.iter().enumerate() {
            if !list.is_empty() {
                let values = list.iter().map(|&v| contributions[v as usize]).collect();
                self.packets.send(
                    holder,
                    Packet {
                        from,
                        payload: Payload::ToGhostsF32(values),
                    },
                );
            }
        }
        let (received, traffic) = self.round();
        for packet in received {
            if let Payload::ToGhostsF32(values) = packet.payload {
                for (&g, value) in routes.ghosts[packet.from as usize].iter().zip(values) {
                    contributions[g as usize] = value;
                }
            }
        }
        let incoming = self
            .partition
            .incoming()
            .expect("pulling needs the in store");
        let snapshot = incoming.snapshot();
        let view = incoming.view(&snapshot)?;
        let stored = view.vertex_count();
        for &v in &self.partition.owned {
            sums[v as usize] = if (v as usize) < stored {
                // Four running sums, as the single machine's pull: one
                // chain of float adds bounds the loop otherwise.
                dyngraph_kernels::sum_of_shares(view.out_neighbors(v), contributions)
            } else {
                0.0
            };
        }
        Ok(traffic)
    }

    /// k-step reverse walks (`A^k · 1`). Values: the `f64` count's bits.
    pub(crate) fn reverse_walks(&mut self, routes: &Routes, steps: usize) -> Result<LocalOutput> {
        let local_count = self.partition.ids.len();
        let mut current = vec![1.0f64; local_count];
        let mut next = vec![0.0f64; local_count];
        let snapshot = self.partition.out().snapshot();
        let mut supersteps = Vec::new();
        for _ in 0..steps {
            {
                let view = self.partition.out().view(&snapshot)?;
                for &u in &self.partition.owned {
                    // An empty sum is -0.0, as in the single-machine kernel.
                    next[u as usize] = if (u as usize) < view.vertex_count() {
                        view.out_neighbors(u).map(|v| current[v as usize]).sum()
                    } else {
                        std::iter::empty::<f64>().sum()
                    };
                }
            }
            for &u in &self.partition.owned {
                current[u as usize] = next[u as usize];
            }
            let from = self.index() as u32;
            for (holder, list) in routes.mirrors.iter().enumerate() {
                if !list.is_empty() {
                    let values = list.iter().map(|&v| current[v as usize]).collect();
                    self.packets.send(
                        holder,
                        Packet {
                            from,
                            payload: Payload::ToGhostsF64(values),
                        },
                    );
                }
            }
            let (received, traffic) = self.round();
            supersteps.push(traffic);
            for packet in received {
                if let Payload::ToGhostsF64(values) = packet.payload {
                    for (&g, value) in routes.ghosts[packet.from as usize].iter().zip(values) {
                        current[g as usize] = value;
                    }
                }
            }
        }
        Ok(LocalOutput {
            values: self.owned_values(|v| current[v as usize].to_bits()),
            iterations: steps,
            supersteps,
            last_change: 0.0,
            bottom_up_steps: 0,
        })
    }
}
