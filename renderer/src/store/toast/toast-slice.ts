/**
 * The one toast the page shows at a time: what was just saved, and an Undo that puts the previous
 * value back (as a new revision). A newer toast replaces the older one.
 */
import type { StateCreator } from 'zustand';
import type { Root } from '../root-store';

export interface Toast {
  id: number;
  message: string;
  /** Undoes the change; resolves to an error message when it could not. */
  undo?: () => Promise<string | undefined>;
  tone?: 'info' | 'error';
}

export interface ToastSlice {
  toast: Toast | undefined;
  showToast: (toast: Omit<Toast, 'id'>) => void;
  dismissToast: (id: number) => void;
}

let nextId = 1;

export const createToastSlice: StateCreator<Root, [], [], ToastSlice> = (set) => ({
  toast: undefined,
  showToast: (toast) => set({ toast: { ...toast, id: nextId++ } }),
  dismissToast: (id) => set((s) => (s.toast?.id === id ? { toast: undefined } : {})),
});

export const toastSelectors = {
  toast: (s: Root) => s.toast,
};
