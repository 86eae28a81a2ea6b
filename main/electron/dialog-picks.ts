/**
 * The system dialogs behind the page's folder picker and export: a folder to add to a server
 * (directories only, one), and where to save an export. Parented to the app window when there is
 * one, so the dialog is modal to it. Takes Electron's `dialog` as an argument, so that it is
 * tested with a fake one.
 */

interface OpenResult {
  canceled: boolean;
  filePaths: string[];
}
interface SaveResult {
  canceled: boolean;
  filePath?: string;
}
type OpenOptions = { properties: Array<'openDirectory'> };
type SaveOptions = { defaultPath: string };

/** The part of Electron's `dialog` used here, parent window of type `W`. */
export interface DialogLike<W> {
  showOpenDialog(window: W, options: OpenOptions): Promise<OpenResult>;
  showOpenDialog(options: OpenOptions): Promise<OpenResult>;
  showSaveDialog(window: W, options: SaveOptions): Promise<SaveResult>;
  showSaveDialog(options: SaveOptions): Promise<SaveResult>;
}

/** The folder picker and the save target, over `dialog`, parented to `parent()` if any. */
export function dialogPicks<W>(dialog: DialogLike<W>, parent: () => W | undefined) {
  return {
    /** One directory the user chose, or undefined when cancelled. */
    pickFolder: async (): Promise<string | undefined> => {
      const options: OpenOptions = { properties: ['openDirectory'] };
      const window = parent();
      const r = window
        ? await dialog.showOpenDialog(window, options)
        : await dialog.showOpenDialog(options);
      return r.canceled ? undefined : r.filePaths[0];
    },
    /** Where the user chose to save `suggestedName`, or undefined when cancelled. */
    pickSaveTarget: async (suggestedName: string): Promise<string | undefined> => {
      const options: SaveOptions = { defaultPath: suggestedName };
      const window = parent();
      const r = window
        ? await dialog.showSaveDialog(window, options)
        : await dialog.showSaveDialog(options);
      return r.canceled || !r.filePath ? undefined : r.filePath;
    },
  };
}
