//! The static arrays of a modal scene as both backends read them (`Packed`, built by
//! `stepper::ModalScene::pack`): below the contact functions, the CPU and GPU passes and the
//! driver, which all read it.

use super::layout::*;

/// The static arrays both backends read (the GPU uploads them once).
#[derive(Clone, Debug)]
pub struct Packed {
    pub params: ModalParams,
    pub bodies: Vec<ModalBodyRec>,
    pub modes: Vec<ModalModeRec>,
    pub mode_grid: Vec<f32>,
    pub phi0: Vec<f32>,
    pub nodes: Vec<ModalNodeRec>,
    pub walls: Vec<ModalWallRec>,
    pub tables: Vec<f32>,
    /// Per body: the level-set query (pullback or precomputed, `precomputed::pack_body`).
    pub queries: Vec<ModalQueryRec>,
    /// Sample amplitudes and precomputed level-set fields (eq 49–50) of the bodies that use them.
    pub pre_ls: Vec<f32>,
    /// The contact law of every ordered pair of contact materials (`model::contact_table`, entry
    /// a·n + b, n = `params.n_materials`): modal–modal and modal–SPD contacts.
    pub laws: Vec<crate::model::ContactLaw>,
}

impl Packed {
    /// The law of a contact between contact materials `a` and `b`.
    pub fn pair_law(&self, a: u32, b: u32) -> crate::model::ContactLaw {
        self.laws[(a * self.params.n_materials + b) as usize]
    }

    /// Replaces the walls by `walls` (a stage changes a wall's velocity, `engine::modal`), as
    /// many as the scene has: the host copy every backend keeps, modal-only or coupled.
    pub fn set_walls(&mut self, walls: &[ModalWallRec]) -> anyhow::Result<()> {
        anyhow::ensure!(
            walls.len() == self.walls.len(),
            "modal wall count changed: {} walls, the scene has {}",
            walls.len(),
            self.walls.len()
        );
        self.walls = walls.to_vec();
        Ok(())
    }
}
